//! The one `SKILL.md` parser: splits the YAML frontmatter from the Markdown
//! body and normalises the fields.
//!
//! It is lenient where real-world files are messy (CRLF, a BOM, block
//! scalars, booleans written as strings, unquoted globs, unknown fields) and
//! strict where a wrong guess would be dangerous (unsafe names, broken YAML,
//! files that are not UTF-8 or larger than 1 MiB). A missing `name` falls
//! back to the folder (or flat file) name; a missing `description` is a
//! warning, not a refusal. Unknown fields are kept in the verbatim text.

use crate::fields::normalise_named;
pub use crate::fields::{INVISIBLE_WARNING, served_name};
pub use crate::model::{Context, Finding, Frontmatter};
use crate::names::check_name;
use crate::yaml::parse_fields;

/// Largest skill document accepted, in bytes.
pub const MAX_DOCUMENT_BYTES: u64 = 1024 * 1024;
/// Largest frontmatter block accepted, in bytes: real ones are well under
/// a kilobyte, and one of thousands of keys would cost the parse (inside a
/// provider's sandbox, against its deadline) far more than it is worth.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// A successfully parsed document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document<'a> {
    /// The normalised frontmatter.
    pub frontmatter: Frontmatter,
    /// The Markdown after the closing `---` (the whole text when there is no
    /// frontmatter).
    pub body: &'a str,
    /// Whether the document opened with a frontmatter block.
    pub has_frontmatter: bool,
    /// Problems that did not stop the skill from loading.
    pub warnings: Vec<Finding>,
}

/// Whether `bytes` opens with a `---` line, which is what makes a flat `.md`
/// file a skill (a `README.md` beside the skills is not one).
pub fn starts_with_frontmatter(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let Some(rest) = bytes.strip_prefix(b"---") else {
        return false;
    };
    let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    rest[..line_end].iter().all(|b| b.is_ascii_whitespace())
}

/// A document's text cut at its frontmatter, before any field is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split<'a> {
    /// The YAML between the `---` lines; `None` when the text does not open
    /// with a `---` line.
    pub raw: Option<&'a str>,
    /// The Markdown after the closing `---` (the whole text when there is
    /// no frontmatter).
    pub body: &'a str,
}

/// The first steps of [`parse_document`], for readers that check the fields
/// themselves (the validator): the size limit, a BOM dropped, UTF-8, and the
/// frontmatter cut from the body.
pub fn split_document(bytes: &[u8]) -> Result<Split<'_>, Finding> {
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // The SIMD validator is several times faster (also inside the sandbox);
    // std's finds the position to report when it fails.
    let text = simdutf8::basic::from_utf8(bytes)
        .or_else(|_| std::str::from_utf8(bytes))
        .map_err(|e| {
            let line = line_of_offset(bytes, e.valid_up_to());
            Finding::new(
                Some(line),
                None,
                format!("not valid UTF-8 (byte {})", e.valid_up_to()),
            )
        })?;
    Ok(match split_frontmatter(text)? {
        Some((raw, body)) => Split {
            raw: Some(raw),
            body,
        },
        None => Split {
            raw: None,
            body: text,
        },
    })
}

/// Parses a whole skill document. `default_name` is the folder (or flat file)
/// name used when the frontmatter gives none.
pub fn parse_document<'a>(bytes: &'a [u8], default_name: &str) -> Result<Document<'a>, Finding> {
    parse(bytes, default_name, false).map(|(doc, _)| doc)
}

/// [`parse_document`], and the frontmatter as JSON text (every field the
/// author wrote, keys in order; `{}` when there is none) made from the
/// same parse: what a provider sends as the contract's `frontmatter.json`.
pub fn parse_document_json<'a>(
    bytes: &'a [u8],
    default_name: &str,
) -> Result<(Document<'a>, String), Finding> {
    parse(bytes, default_name, true).map(|(doc, json)| (doc, json.unwrap_or_default()))
}

fn parse<'a>(
    bytes: &'a [u8],
    default_name: &str,
    json: bool,
) -> Result<(Document<'a>, Option<String>), Finding> {
    let Split { raw, body } = split_document(bytes)?;
    let Some(raw) = raw else {
        let mut frontmatter = Frontmatter::defaults(default_name);
        check_name(&frontmatter.name)
            .map_err(|e| Finding::new(None, Some("name"), e.to_string()))?;
        frontmatter.raw = String::new();
        let doc = Document {
            frontmatter,
            body,
            has_frontmatter: false,
            warnings: vec![Finding::new(
                Some(1),
                Some("description"),
                "no frontmatter: the skill has no description",
            )],
        };
        return Ok((doc, json.then(|| "{}".to_string())));
    };
    if raw.len() > MAX_FRONTMATTER_BYTES {
        return Err(frontmatter_too_large(raw.len()));
    }
    let fields = parse_fields(raw)?;
    let mut warnings = Vec::new();
    let name = served_name(&fields, default_name)?;
    let frontmatter = normalise_named(raw, &fields, name, &mut warnings);
    let json = json.then(|| crate::json::fields_json_text(&fields));
    let doc = Document {
        frontmatter,
        body,
        has_frontmatter: true,
        warnings,
    };
    Ok((doc, json))
}

/// A document as a provider sends it over the contract: the verbatim
/// frontmatter, the JSON of its own parse of it, and the name it is served
/// under. No field is normalised here: the host derives them from the JSON
/// with [`from_json`], so every provider's skills follow the same rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head<'a> {
    /// The YAML between the `---` lines (empty when there is none).
    pub raw: &'a str,
    /// The frontmatter as one JSON object (`{}` when there is none).
    pub json: String,
    /// The declared name, or `default_name` when none is declared.
    pub name: String,
    /// The Markdown after the closing `---` (the whole text when there is
    /// no frontmatter).
    pub body: &'a str,
    /// Whether the document opened with a frontmatter block.
    pub has_frontmatter: bool,
}

/// Reads a skill document for the contract: size, UTF-8, the frontmatter
/// cut and parsed (its YAML, inside the provider's sandbox), the served
/// name. Fails as [`parse_document`] fails: a broken document is refused
/// with the same finding.
pub fn read_document<'a>(bytes: &'a [u8], default_name: &str) -> Result<Head<'a>, Finding> {
    let Split { raw, body } = split_document(bytes)?;
    let Some(raw) = raw else {
        check_name(default_name).map_err(|e| Finding::new(None, Some("name"), e.to_string()))?;
        return Ok(Head {
            raw: "",
            json: "{}".to_string(),
            name: default_name.to_string(),
            body,
            has_frontmatter: false,
        });
    };
    if raw.len() > MAX_FRONTMATTER_BYTES {
        return Err(frontmatter_too_large(raw.len()));
    }
    let fields = parse_fields(raw)?;
    Ok(Head {
        raw,
        name: served_name(&fields, default_name)?,
        json: crate::json::fields_json_text(&fields),
        body,
        has_frontmatter: true,
    })
}

/// The typed fields of a skill served as `name`, derived from the JSON of
/// its frontmatter (`raw` is kept verbatim beside them), with a warning
/// for each value of the wrong shape. This is how the host reads what a
/// provider sends: the same rules as [`parse_document`], applied to the
/// provider's own parse. Fails when `name` is unsafe or the JSON is not one
/// object.
pub fn from_json(
    raw: &str,
    json: &str,
    name: &str,
) -> Result<(Frontmatter, Vec<Finding>), Finding> {
    check_name(name).map_err(|e| Finding::new(None, Some("name"), e.to_string()))?;
    let fields = crate::json_fields::parse_fields(json)
        .map_err(|e| Finding::new(None, None, e.to_string()))?;
    let mut warnings = Vec::new();
    let frontmatter = normalise_named(raw, &fields, name.to_string(), &mut warnings);
    Ok((frontmatter, warnings))
}

fn frontmatter_too_large(len: usize) -> Finding {
    Finding::new(
        Some(1),
        None,
        format!("frontmatter is {len} bytes, larger than the 64 KiB limit"),
    )
}

/// The finding for a document over [`MAX_DOCUMENT_BYTES`].
pub fn too_large(size: u64) -> Finding {
    Finding::new(
        None,
        None,
        format!("file is {size} bytes, larger than the 1 MiB limit"),
    )
}

fn line_of_offset(bytes: &[u8], offset: usize) -> u32 {
    let newlines = bytes[..offset.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(newlines).unwrap_or(u32::MAX - 1) + 1
}

/// Splits `---\n<yaml>\n---\n<body>`; `None` when the text does not open
/// with a `---` line.
fn split_frontmatter(text: &str) -> Result<Option<(&str, &str)>, Finding> {
    let bytes = text.as_bytes();
    // A `---` line, trailing whitespace allowed (the byte search matters
    // inside the sandbox, where every scanned line costs).
    let is_fence =
        |line: &[u8]| line.starts_with(b"---") && line[3..].iter().all(u8::is_ascii_whitespace);
    let first_end = memchr::memchr(b'\n', bytes).map_or(bytes.len(), |i| i + 1);
    if !is_fence(&bytes[..first_end]) {
        return Ok(None);
    }
    let mut offset = first_end;
    while offset < bytes.len() {
        let line_end =
            memchr::memchr(b'\n', &bytes[offset..]).map_or(bytes.len(), |i| offset + i + 1);
        if is_fence(&bytes[offset..line_end]) {
            // Both ends are at line boundaries, so both are char boundaries.
            return Ok(Some((&text[first_end..offset], &text[line_end..])));
        }
        offset = line_end;
    }
    Err(Finding::new(
        Some(1),
        None,
        "frontmatter opened with '---' on line 1 is never closed",
    ))
}

#[cfg(test)]
#[path = "frontmatter_tests.rs"]
mod tests;
