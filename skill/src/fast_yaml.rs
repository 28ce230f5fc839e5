//! A fast path for the YAML that skill frontmatter is almost always written
//! in: top-level `key: value` lines with plain, quoted or block scalars,
//! short lists, and one level of nested mapping (`metadata`).
//!
//! It produces exactly what `serde_yaml` would for that subset, without the
//! event machinery (which dominates a catalog scan), and returns `None` for
//! anything outside it (anchors, tags, numbers, multi-line plain scalars,
//! deeper nesting, odd indentation...), so the caller falls back to
//! `serde_yaml`. Differential tests below pin the equivalence.

use crate::node::{Fields, Node};
use std::borrow::Cow;

/// Most keys in one mapping on the fast path (real frontmatter has a dozen).
const MAX_KEYS: usize = 64;

/// Parses `text` if it stays inside the supported subset.
pub fn parse(text: &str) -> Option<Fields<'_>> {
    // `lines()`-like, but a final line break ends a line rather than
    // starting an empty one (which would count as a blank line in blocks).
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut lines: Vec<&str> =
        Vec::with_capacity(memchr::memchr_iter(b'\n', body.as_bytes()).count() + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', body.as_bytes()).chain(std::iter::once(body.len())) {
        let line = &body[start..end];
        lines.push(line.strip_suffix('\r').unwrap_or(line));
        start = end + 1;
    }
    let mut map: Fields<'_> = Vec::with_capacity(8);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if is_blank_or_comment(line) {
            i += 1;
            continue;
        }
        if matches!(line.as_bytes().first(), Some(b' ' | b'\t')) {
            // Indented text here would be a continuation of a plain scalar.
            return None;
        }
        let (key, rest) = split_key(line)?;
        i += 1;
        let value = if rest.is_empty() {
            let (value, next) = nested(&lines, i)?;
            i = next;
            value
        } else if let Some(header) = block_header(rest) {
            let (value, next) = block_scalar(&lines, i, 0, header)?;
            i = next;
            value
        } else {
            inline_value(rest)?
        };
        // Past a few dozen keys (a hostile frontmatter) the pairwise
        // duplicate check would be quadratic: `serde_yaml` checks with a set.
        if map.len() >= MAX_KEYS || map.iter().any(|(k, _)| k == key) {
            return None;
        }
        map.push((Cow::Borrowed(key), value));
    }
    Some(map)
}

/// `s` without leading and trailing spaces and tabs (the only blanks
/// YAML separates with). Byte-wise: both are ASCII, so every cut is a char
/// boundary.
fn trim_blanks(s: &str) -> &str {
    trim_blanks_end(trim_blanks_start(s))
}

fn trim_blanks_start(s: &str) -> &str {
    let skip = s.bytes().take_while(|b| matches!(b, b' ' | b'\t')).count();
    &s[skip..]
}

fn trim_blanks_end(s: &str) -> &str {
    let skip = s
        .bytes()
        .rev()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    &s[..s.len() - skip]
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = trim_blanks_start(line);
    t.is_empty() || t.starts_with('#')
}

/// `key: rest` with a plain key; `rest` is trimmed and has no comment.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let colon = memchr::memchr(b':', line.as_bytes())?;
    let key = &line[..colon];
    if key.is_empty()
        || !key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return None;
    }
    let rest = &line[colon + 1..];
    if !matches!(rest.as_bytes().first(), None | Some(b' ' | b'\t')) {
        return None;
    }
    Some((key, strip_comment(trim_blanks(rest))))
}

/// Removes a trailing ` # comment` from an unquoted value.
fn strip_comment(value: &str) -> &str {
    if value.starts_with('#') {
        return "";
    }
    if value.starts_with(['"', '\'']) {
        return value;
    }
    let bytes = value.as_bytes();
    for at in memchr::memchr_iter(b'#', bytes) {
        if at > 0 && matches!(bytes[at - 1], b' ' | b'\t') {
            return trim_blanks_end(&value[..at]);
        }
    }
    value
}

/// A value written on the key's own line.
fn inline_value(rest: &str) -> Option<Node<'_>> {
    if let Some(inner) = rest.strip_prefix('[') {
        return flow_sequence(inner.strip_suffix(']')?);
    }
    scalar(rest)
}

/// A single-line scalar: quoted or plain.
fn scalar(text: &str) -> Option<Node<'_>> {
    if let Some(inner) = text.strip_prefix('"') {
        return double_quoted(inner.strip_suffix('"')?).map(|s| Node::Text(Cow::Owned(s)));
    }
    if let Some(inner) = text.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'')?;
        if inner.replace("''", "").contains('\'') {
            return None;
        }
        if !inner.contains('\'') {
            return Some(Node::Text(Cow::Borrowed(inner)));
        }
        return Some(Node::Text(Cow::Owned(inner.replace("''", "'"))));
    }
    plain(text)
}

/// A plain scalar: text, a boolean or null. Anything that could resolve to
/// a number, or that YAML reads specially, is left to `serde_yaml`.
fn plain(text: &str) -> Option<Node<'_>> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Some(Node::Null),
        "true" | "True" | "TRUE" => return Some(Node::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Node::Bool(false)),
        _ => {}
    }
    let bytes = text.as_bytes();
    let first = bytes[0];
    let special_start = matches!(
        first,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    );
    let numeric_looking = first.is_ascii_digit() || first == b'+' || first == b'.';
    if special_start || numeric_looking || bytes[bytes.len() - 1] == b':' {
        return None;
    }
    // One pass for what would make YAML read the text differently: a tab,
    // `: ` (a nested mapping) or ` #` (a comment).
    // (Searched for byte by byte with SIMD: inside the sandbox a loop over
    // every pair of bytes was a tenth of the whole parse.)
    if bytes.len() >= 2 && memchr::memchr(b'\t', bytes).is_some() {
        return None;
    }
    for at in memchr::memchr2_iter(b':', b'#', bytes) {
        let next = bytes.get(at + 1).copied();
        let previous = at.checked_sub(1).map(|p| bytes[p]);
        match bytes[at] {
            b':' if next == Some(b' ') => return None,
            b'#' if previous == Some(b' ') => return None,
            _ => {}
        }
    }
    // YAML 1.1 booleans that serde_yaml may resolve; leave them to it.
    if text.len() <= 5
        && ["y", "n", "yes", "no", "on", "off", ".inf", ".nan"]
            .iter()
            .any(|word| text.eq_ignore_ascii_case(word))
    {
        return None;
    }
    Some(Node::Text(Cow::Borrowed(text)))
}

fn double_quoted(inner: &str) -> Option<String> {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {
                let escaped = match chars.next()? {
                    '"' => '"',
                    '\\' => '\\',
                    '/' => '/',
                    'n' => '\n',
                    't' => '\t',
                    'r' => '\r',
                    '0' => '\0',
                    ' ' => ' ',
                    _ => return None,
                };
                out.push(escaped);
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// `[a, b, "c"]` with scalar items only.
fn flow_sequence(inner: &str) -> Option<Node<'_>> {
    if inner.contains(['[', ']', '{', '}']) {
        return None;
    }
    let inner = trim_blanks(inner);
    if inner.is_empty() {
        return Some(Node::Seq(Vec::new()));
    }
    let mut items = Vec::new();
    for part in split_flow(inner)? {
        let part = trim_blanks(part);
        if part.is_empty() || part.contains(": ") {
            return None;
        }
        items.push(scalar(part)?);
    }
    Some(Node::Seq(items))
}

/// Splits flow items on commas outside quotes.
fn split_flow(inner: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quote: Option<char> = None;
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ',') => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if quote.is_some() {
        return None;
    }
    let last = &inner[start..];
    // A trailing comma is allowed in flow sequences.
    if !last.trim().is_empty() {
        parts.push(last);
    }
    Some(parts)
}

fn indent_of(line: &str) -> Option<usize> {
    let spaces = line.len() - line.trim_start_matches(' ').len();
    // Tabs may not indent YAML.
    (!line[spaces..].starts_with('\t')).then_some(spaces)
}

/// What follows `key:` on later lines: a block sequence, a one-level
/// mapping, or nothing (null).
fn nested<'a>(lines: &[&'a str], start: usize) -> Option<(Node<'a>, usize)> {
    let mut i = start;
    while i < lines.len() && is_blank_or_comment(lines[i]) {
        i += 1;
    }
    let Some(first) = lines.get(i) else {
        return Some((Node::Null, i));
    };
    let indent = indent_of(first)?;
    let body = &first[indent..];
    if body == "-" || body.starts_with("- ") {
        return block_sequence(lines, i, indent);
    }
    if indent == 0 {
        return Some((Node::Null, start));
    }
    nested_mapping(lines, i, indent)
}

fn block_sequence<'a>(lines: &[&'a str], start: usize, indent: usize) -> Option<(Node<'a>, usize)> {
    let mut items = Vec::new();
    let mut i = start;
    while i < lines.len() {
        let line = lines[i];
        if is_blank_or_comment(line) {
            i += 1;
            continue;
        }
        let this = indent_of(line)?;
        if this < indent || (this == indent && indent == 0 && !line.starts_with('-')) {
            break;
        }
        if this != indent {
            return None;
        }
        let body = &line[indent..];
        let item = if body == "-" {
            ""
        } else {
            body.strip_prefix("- ")?
        };
        let item = strip_comment(trim_blanks(item));
        if item.starts_with(['[', '{', '|', '>', '-']) || block_header(item).is_some() {
            return None;
        }
        items.push(scalar(item)?);
        i += 1;
    }
    Some((Node::Seq(items), i))
}

fn nested_mapping<'a>(lines: &[&'a str], start: usize, indent: usize) -> Option<(Node<'a>, usize)> {
    let mut map: Vec<(Node<'a>, Node<'a>)> = Vec::new();
    let mut i = start;
    while i < lines.len() {
        let line = lines[i];
        if is_blank_or_comment(line) {
            i += 1;
            continue;
        }
        let this = indent_of(line)?;
        if this < indent {
            if this != 0 {
                return None;
            }
            break;
        }
        if this != indent {
            return None;
        }
        let (key, rest) = split_key(&line[indent..])?;
        i += 1;
        let value = if rest.is_empty() {
            // Deeper nesting, or a null: only the null is in the subset.
            if lines.get(i).is_some_and(|next| {
                !is_blank_or_comment(next) && indent_of(next).is_none_or(|n| n > indent)
            }) {
                return None;
            }
            Node::Null
        } else if let Some(header) = block_header(rest) {
            let (value, next) = block_scalar(lines, i, indent, header)?;
            i = next;
            value
        } else {
            inline_value(rest)?
        };
        if map.len() >= MAX_KEYS
            || map
                .iter()
                .any(|(k, _)| matches!(k, Node::Text(k) if k == key))
        {
            return None;
        }
        map.push((Node::Text(Cow::Borrowed(key)), value));
    }
    Some((Node::Map(map), i))
}

#[derive(Clone, Copy)]
struct BlockHeader {
    folded: bool,
    chomp: Chomp,
}

#[derive(Clone, Copy, PartialEq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

fn block_header(rest: &str) -> Option<BlockHeader> {
    let (folded, tail) = match rest.as_bytes().first()? {
        b'|' => (false, &rest[1..]),
        b'>' => (true, &rest[1..]),
        _ => return None,
    };
    let chomp = match tail {
        "" => Chomp::Clip,
        "-" => Chomp::Strip,
        "+" => Chomp::Keep,
        _ => return None,
    };
    Some(BlockHeader { folded, chomp })
}

/// A `|` or `>` block whose lines are indented more than `parent`.
fn block_scalar<'a>(
    lines: &[&'a str],
    start: usize,
    parent: usize,
    header: BlockHeader,
) -> Option<(Node<'a>, usize)> {
    let mut i = start;
    let mut content: Vec<&str> = Vec::new();
    let mut indent: Option<usize> = None;
    while i < lines.len() {
        let line = lines[i];
        if line.trim_matches(' ').is_empty() {
            // Blank lines with more spaces than the indent carry content.
            if indent.is_some_and(|n| line.len() > n) {
                return None;
            }
            content.push("");
            i += 1;
            continue;
        }
        let this = indent_of(line)?;
        if this <= parent {
            break;
        }
        match indent {
            None => {
                if content.iter().any(|l| !l.is_empty()) {
                    return None;
                }
                // Leading blank lines before the first text line are rare and
                // have subtle rules; leave them to serde_yaml.
                if !content.is_empty() {
                    return None;
                }
                indent = Some(this);
            }
            Some(n) if this < n => return None,
            Some(n) if this > n && header.folded => return None,
            Some(_) => {}
        }
        let n = indent.unwrap_or(this);
        content.push(&line[n..]);
        i += 1;
    }
    let trailing = content.iter().rev().take_while(|l| l.is_empty()).count();
    let text_lines = &content[..content.len() - trailing];
    let mut out = String::new();
    if header.folded {
        let mut previous_blank = false;
        for (k, line) in text_lines.iter().enumerate() {
            if line.is_empty() {
                out.push('\n');
                previous_blank = true;
                continue;
            }
            if k > 0 && !previous_blank {
                out.push(' ');
            }
            previous_blank = false;
            out.push_str(line);
        }
    } else {
        out = text_lines.join("\n");
    }
    if !text_lines.is_empty() {
        match header.chomp {
            Chomp::Strip => {}
            Chomp::Clip => out.push('\n'),
            Chomp::Keep => {
                out.push('\n');
                for _ in 0..trailing {
                    out.push('\n');
                }
            }
        }
    } else if header.chomp == Chomp::Keep {
        return None;
    }
    Some((Node::Text(Cow::Owned(out)), i))
}

#[cfg(test)]
#[path = "fast_yaml_tests.rs"]
mod tests;
