//! How a table asks for its next page: the tool is called again, through the host, with one
//! argument changed. Which argument, and where the next value comes from, is read from the
//! tool's input schema and its response schema.
//!
//! - **cursor**: an argument such as `cursor` or `page_token`, and a response field such as
//!   `next_cursor` (at the top or in a `meta`/`pagination` object) holding the next value;
//! - **page**: an argument such as `page`; the next page is the response's current page (or
//!   the argument, else 1) plus one;
//! - **offset**: an argument such as `offset`; the next offset is the current one plus the
//!   rows shown.
//!
//! A `has_more`-like flag, a total page count and a short page end the paging.

use serde::Serialize;
use serde_json::{Map, Value};

use super::layout::{Layout, ViewKind, Walk, properties, type_of};

/// Arguments that take a cursor.
const CURSOR_ARGS: [&str; 14] = [
    "cursor",
    "page_token",
    "pageToken",
    "next_token",
    "nextToken",
    "next_page_token",
    "nextPageToken",
    "after",
    "starting_after",
    "startingAfter",
    "continuation",
    "continuation_token",
    "continuationToken",
    "marker",
];

/// Response fields holding the next cursor.
const CURSOR_FIELDS: [&str; 12] = [
    "next_cursor",
    "nextCursor",
    "next_page_token",
    "nextPageToken",
    "next_token",
    "nextToken",
    "end_cursor",
    "endCursor",
    "continuation",
    "continuation_token",
    "next_marker",
    "cursor",
];

/// Arguments that take a page number.
const PAGE_ARGS: [&str; 5] = ["page", "page_number", "pageNumber", "page_num", "pageNum"];

/// Arguments that take an offset.
const OFFSET_ARGS: [&str; 3] = ["offset", "skip", "start"];

/// Arguments that take the page size.
const SIZE_ARGS: [&str; 10] = [
    "limit",
    "per_page",
    "perPage",
    "page_size",
    "pageSize",
    "size",
    "count",
    "max_results",
    "maxResults",
    "take",
];

/// Response fields saying whether there is more.
const MORE_FIELDS: [&str; 7] = [
    "has_more",
    "hasMore",
    "has_next",
    "hasNext",
    "has_next_page",
    "hasNextPage",
    "more",
];

/// Response fields holding the current page number.
const CURRENT_FIELDS: [&str; 5] = [
    "page",
    "current_page",
    "currentPage",
    "page_number",
    "pageNumber",
];

/// Response fields holding the number of pages.
const PAGES_FIELDS: [&str; 7] = [
    "total_pages",
    "totalPages",
    "pages",
    "page_count",
    "pageCount",
    "last_page",
    "lastPage",
];

/// Objects of a response that hold its paging fields, besides the response itself.
const PAGING_OBJECTS: [&str; 7] = [
    "meta",
    "pagination",
    "paging",
    "page_info",
    "pageInfo",
    "links",
    "cursor",
];

/// Whether a response field named `name` is about paging (a cursor, a page number, a flag
/// or a link to the next page): a list beside such fields is still the response's rows.
pub(super) fn is_paging_field(name: &str) -> bool {
    [
        &CURSOR_FIELDS[..],
        &MORE_FIELDS,
        &CURRENT_FIELDS,
        &PAGES_FIELDS,
        &[
            "next",
            "previous",
            "prev",
            "next_page",
            "nextPage",
            "next_url",
            "nextUrl",
        ],
    ]
    .iter()
    .any(|names| names.contains(&name))
}

/// How the next page is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PagingMode {
    /// The argument takes the cursor the response gave.
    Cursor,
    /// The argument takes the page number.
    Page,
    /// The argument takes the index of the first row.
    Offset,
}

/// A table's paging.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Paging {
    /// How.
    pub mode: PagingMode,
    /// The argument changed for the next page.
    pub arg: String,
    /// The argument holding the page size, if the tool has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<String>,
    /// Where the response holds the next cursor (cursor mode) or its current page (page
    /// mode), as property names from the root of `structuredContent`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next: Vec<String>,
    /// Where the response says whether there is more.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<String>,
    /// Where the response holds the number of pages.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<String>,
}

impl Layout {
    /// The layout with the paging of a tool whose input schema is `input` and whose output
    /// schema is `output` (`wrapped` as in [`super::derive`]); a card, or a tool without
    /// paging arguments, keeps none.
    pub fn with_paging(
        mut self,
        input: &Value,
        output: &Value,
        wrapped: bool,
        resolve: &mut dyn FnMut(&str) -> Option<Value>,
    ) -> Self {
        if self.kind == ViewKind::Table {
            self.paging = detect(input, output, wrapped, resolve);
        }
        self
    }
}

/// The paging of a tool whose input schema is `input` and output schema `output`.
fn detect(
    input: &Value,
    output: &Value,
    wrapped: bool,
    resolve: &mut dyn FnMut(&str) -> Option<Value>,
) -> Option<Paging> {
    let mut walk = Walk::new(resolve);
    let args = properties(input)?;
    let arg = |names: &[&'static str], numeric: bool| {
        names.iter().copied().find(|name| {
            args.get(*name).is_some_and(|schema| {
                !numeric || matches!(type_of(schema), Some("integer" | "number") | None)
            })
        })
    };
    let size = arg(&SIZE_ARGS, true).map(str::to_owned);
    let response = if wrapped {
        None
    } else {
        walk.normalize(output)
    };
    let mut find = |names: &[&str]| {
        response
            .as_ref()
            .map(|root| find_field(&mut walk, root, names))
            .unwrap_or_default()
    };
    let more = find(&MORE_FIELDS);
    let pages = find(&PAGES_FIELDS);
    let paging = |mode, arg: &str, next| Paging {
        mode,
        arg: arg.to_owned(),
        size: size.clone(),
        next,
        more: more.clone(),
        pages: pages.clone(),
    };
    if let Some(cursor) = arg(&CURSOR_ARGS, false) {
        let next = find(&CURSOR_FIELDS);
        if !next.is_empty() {
            return Some(paging(PagingMode::Cursor, cursor, next));
        }
    }
    if let Some(page) = arg(&PAGE_ARGS, true) {
        return Some(paging(PagingMode::Page, page, find(&CURRENT_FIELDS)));
    }
    let offset = arg(&OFFSET_ARGS, true)?;
    Some(paging(PagingMode::Offset, offset, Vec::new()))
}

/// The path of the first of `names` among the root's properties, else among those of one of
/// its [`PAGING_OBJECTS`]; empty when none is there.
fn find_field(walk: &mut Walk<'_>, root: &Value, names: &[&str]) -> Vec<String> {
    let Some(props) = properties(root) else {
        return Vec::new();
    };
    if let Some(name) = first_of(props, names) {
        return vec![name];
    }
    for holder in PAGING_OBJECTS {
        let nested = props.get(holder).and_then(|schema| walk.normalize(schema));
        if let Some(name) = nested
            .as_ref()
            .and_then(properties)
            .and_then(|p| first_of(p, names))
        {
            return vec![holder.to_owned(), name];
        }
    }
    Vec::new()
}

fn first_of(props: &Map<String, Value>, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find(|name| props.contains_key(**name))
        .map(|name| (*name).to_owned())
}
