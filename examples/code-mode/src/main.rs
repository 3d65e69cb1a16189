//! A server in code mode: `tools/list` shows `search_tools`, `describe_tools` and `execute`, and
//! a model writes one JavaScript program that calls the tools it found instead of one
//! `tools/call` per step. The tools here are the application's own (`#[mcp_tool]`); a generated
//! server's run in code mode the same way (`--tool-mode code`). `tests/execute.rs` starts this
//! binary and runs `low_stock.js` through `execute`.

use std::fmt;

use mcpgen::Principal;
use mcpgen::prelude::*;
use mcpgen::server::{Server, ToolMode};

// ANCHOR: tools
/// A product of the warehouse.
#[derive(serde::Serialize, JsonSchema)]
struct Product {
    /// Stock-keeping unit.
    sku: String,
    /// What the product is called.
    name: String,
}

/// Products whose name matched.
#[derive(serde::Serialize, JsonSchema)]
struct Products {
    /// The products, in SKU order.
    products: Vec<Product>,
}

/// How many units of a product are on hand.
#[derive(serde::Serialize, JsonSchema)]
struct Stock {
    /// The product's SKU.
    sku: String,
    /// Units on hand.
    on_hand: u32,
}

/// An order for more units of a product.
#[derive(serde::Serialize, JsonSchema)]
struct Order {
    /// The product's SKU.
    sku: String,
    /// Units ordered.
    units: u32,
    /// Who ordered them.
    by: String,
}

/// Why a tool of the warehouse failed; the caller sees the text as an error result.
#[derive(Debug)]
enum WarehouseError {
    /// No product has this SKU.
    UnknownSku(String),
}

impl fmt::Display for WarehouseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnknownSku(sku) => write!(f, "unknown SKU `{sku}`; list_products names them"),
        }
    }
}

/// The warehouse: each product's SKU, name and units on hand (a database in a real one).
struct Warehouse {
    products: Vec<(&'static str, &'static str, u32)>,
}

#[mcp_tools]
impl Warehouse {
    /// Lists the products whose name contains `filter`.
    #[mcp_tool(read_only, title = "List products")]
    async fn list_products(
        &self,
        /// Part of the product name to look for.
        filter: Option<String>,
    ) -> Products {
        let products = self
            .products
            .iter()
            .filter(|(_, name, _)| filter.as_deref().is_none_or(|f| name.contains(f)))
            .map(|(sku, name, _)| Product {
                sku: (*sku).into(),
                name: (*name).into(),
            })
            .collect();
        Products { products }
    }

    /// How many units of a product are on hand.
    #[mcp_tool(read_only, title = "Stock of a product")]
    async fn stock(
        &self,
        /// The product's SKU.
        sku: String,
    ) -> Result<Stock, WarehouseError> {
        let on_hand = self.on_hand(&sku)?;
        Ok(Stock { sku, on_hand })
    }

    /// Orders more units of a product (this example only confirms the order).
    #[mcp_tool(idempotent, title = "Reorder a product", scope = "orders")]
    async fn reorder(
        &self,
        /// The product's SKU.
        sku: String,
        /// How many units to order.
        units: u32,
        ctx: ToolContext,
    ) -> Result<Order, WarehouseError> {
        self.on_hand(&sku)?;
        let by = ctx.principal().map_or("anonymous", |p| p.id.as_str());
        Ok(Order {
            sku,
            units,
            by: by.to_owned(),
        })
    }
}

impl Warehouse {
    /// The units on hand of the product `sku`.
    fn on_hand(&self, sku: &str) -> Result<u32, WarehouseError> {
        self.products
            .iter()
            .find(|(known, _, _)| *known == sku)
            .map(|(_, _, on_hand)| *on_hand)
            .ok_or_else(|| WarehouseError::UnknownSku(sku.to_owned()))
    }
}

/// Adds two numbers.
#[mcp_tool(read_only, scope = "math")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}
// ANCHOR_END: tools

// ANCHOR: server
fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Programs run in worker processes, which are this binary started again: first thing in
    // `main`, before any other work, they are told apart and serve as workers.
    mcpgen::code::run_worker_if_asked();
    serve()
}

#[mcpgen::tokio::main(crate = "mcpgen::tokio")]
async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let warehouse = Warehouse {
        products: vec![
            ("B-100", "bolts", 250),
            ("N-200", "nuts", 4),
            ("W-300", "washers", 7),
        ],
    };
    let server = Server::builder("warehouse", "1.0.0")
        .tool_set(warehouse.into_tool_set()) // every #[mcp_tool] method of the impl
        .tool_set(tool_set![add]) // free functions; one function may be in several sets
        .tool_mode(ToolMode::Code) // search_tools, describe_tools and execute
        .no_auth()
        .build()?;
    server.serve_stdio(Principal::unrestricted("local")).await?;
    Ok(())
}
// ANCHOR_END: server
