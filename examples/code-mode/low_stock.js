// Which products are running low? One program instead of a tools/call per product.
const { products } = await tools.list_products({});
const stock = await Promise.all(products.map((p) => tools.stock({ sku: p.sku })));
console.log("checked", products.length, "products");
return stock.filter((s) => s.on_hand < 10).map((s) => s.sku);
