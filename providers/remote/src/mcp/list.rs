//! `skills/list` across pages: cursors followed until the server gives none,
//! bounded in pages and entries, and never round a loop.

use serde_json::Value;

/// Most pages followed in one listing.
pub const MAX_PAGES: usize = 10_000;
/// Most entries kept from one listing.
pub const MAX_ENTRIES: usize = 100_000;

/// One page of a `skills/list` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Its entries.
    pub skills: Vec<Value>,
    /// The cursor of the next page.
    pub next: Option<String>,
    /// How long the server says the page may be kept.
    pub ttl_ms: Option<u64>,
}

/// Every page, joined.
#[derive(Debug, Clone, PartialEq)]
pub struct Listing {
    /// The entries of every page, in order.
    pub skills: Vec<Value>,
    /// The shortest `ttlMs` of any page.
    pub ttl_ms: Option<u64>,
    /// Pages fetched.
    pub pages: usize,
}

/// Reads one `skills/list` result.
pub fn page(result: &Value) -> Result<Page, String> {
    let skills = result["skills"]
        .as_array()
        .ok_or("the skills/list result has no \"skills\" list")?
        .clone();
    let next = match &result["nextCursor"] {
        Value::Null => None,
        Value::String(c) if !c.is_empty() => Some(c.clone()),
        Value::String(_) => None,
        _ => return Err("nextCursor is not a string".to_string()),
    };
    Ok(Page {
        skills,
        next,
        ttl_ms: result["ttlMs"].as_u64(),
    })
}

/// Follows cursors from the first page, asking `fetch` for each (`None`:
/// the first). A cursor seen before is a loop and an error, as are more
/// than `MAX_PAGES` pages or `MAX_ENTRIES` entries.
pub fn collect(
    mut fetch: impl FnMut(Option<&str>) -> Result<Page, String>,
) -> Result<Listing, String> {
    let mut listing = Listing {
        skills: Vec::new(),
        ttl_ms: None,
        pages: 0,
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = fetch(cursor.as_deref())?;
        listing.pages += 1;
        listing.skills.extend(page.skills);
        if listing.skills.len() > MAX_ENTRIES {
            return Err(format!("the listing has more than {MAX_ENTRIES} skills"));
        }
        listing.ttl_ms = match (listing.ttl_ms, page.ttl_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match page.next {
            None => return Ok(listing),
            Some(next) => {
                if !seen.insert(next.clone()) {
                    return Err(format!(
                        "the server sent the cursor {next:?} twice; the listing loops"
                    ));
                }
                if listing.pages >= MAX_PAGES {
                    return Err(format!("the listing has more than {MAX_PAGES} pages"));
                }
                cursor = Some(next);
            }
        }
    }
}

#[cfg(test)]
#[path = "list_tests.rs"]
mod tests;
