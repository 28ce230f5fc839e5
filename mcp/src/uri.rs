//! `skill://` URIs: how a skill and its files are named on the wire, and
//! the opaque cursors of paged lists.
//!
//! A local skill is `skill://<name>/SKILL.md`; a remote one keeps its
//! namespace as the first segment, `skill://<label>/<name>/SKILL.md`, so the
//! final segment is still the skill's name. Every other segment is
//! percent-encoded one way only, so a URI is looked up by exact string and
//! never resolved: the server answers only URIs it built itself.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// The scheme every URI served here has.
pub const SCHEME: &str = "skill://";
/// The file every skill is addressed by.
pub const SKILL_MD: &str = "SKILL.md";

/// Longest cursor accepted from a client.
const MAX_CURSOR: usize = 4096;

/// Bytes a path segment keeps as they are (RFC 3986 unreserved and
/// sub-delims, `:` and `@`); everything else is percent-encoded.
fn keeps_in_segment(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b)
}

/// Bytes an authority keeps (a reg-name: no `:` or `@`).
fn keeps_in_authority(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b)
}

fn encode(text: &str, keep: fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if keep(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The root of a skill (`skill://<name>` or `skill://<label>/<name>`), no
/// trailing slash.
pub fn skill_root(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(label) => format!(
            "{SCHEME}{}/{}",
            encode(label, keeps_in_authority),
            encode(name, keeps_in_segment)
        ),
        None => format!("{SCHEME}{}", encode(name, keeps_in_authority)),
    }
}

/// The URI of a file of the skill at `root`; `relative` is `/`-separated.
pub fn file_uri(root: &str, relative: &str) -> String {
    let mut out = String::with_capacity(root.len() + relative.len() + 1);
    out.push_str(root);
    for segment in relative.split('/') {
        out.push('/');
        out.push_str(&encode(segment, keeps_in_segment));
    }
    out
}

/// The last segment of a `/`-separated path.
pub fn basename(relative: &str) -> &str {
    relative.rsplit('/').next().unwrap_or(relative)
}

/// An opaque cursor saying "after `key`" in the list `kind`.
pub fn cursor(kind: &str, key: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{kind}\n{key}"))
}

/// The key a cursor of list `kind` points after; `None` when it is not one
/// of ours (or for another list).
pub fn after(kind: &str, cursor: &str) -> Option<String> {
    if cursor.len() > MAX_CURSOR {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (found, key) = text.split_once('\n')?;
    (found == kind).then(|| key.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_and_remote_uris_end_in_the_name() {
        let local = skill_root(None, "pdf-tools");
        assert_eq!(file_uri(&local, SKILL_MD), "skill://pdf-tools/SKILL.md");
        let remote = skill_root(Some("skills.example.com"), "pdf-tools");
        assert_eq!(
            file_uri(&remote, SKILL_MD),
            "skill://skills.example.com/pdf-tools/SKILL.md"
        );
        assert_eq!(
            rmcp::model::skill_name_from_uri(&file_uri(&remote, SKILL_MD)),
            Some("pdf-tools")
        );
    }

    #[test]
    fn segments_are_percent_encoded_and_never_climb() {
        let root = skill_root(Some("a:b"), "x");
        assert_eq!(root, "skill://a%3Ab/x");
        assert_eq!(
            file_uri(&root, "notes/a b/ü?#.md"),
            "skill://a%3Ab/x/notes/a%20b/%C3%BC%3F%23.md"
        );
        // A `..` segment only ever comes from a provider's own listing,
        // which refuses it; even then it stays a literal segment here.
        assert_eq!(file_uri("skill://x", "%2e"), "skill://x/%252e");
    }

    #[test]
    fn cursors_round_trip_and_refuse_what_is_not_theirs() {
        let c = cursor("skills", "skill://b/SKILL.md");
        assert_eq!(after("skills", &c).as_deref(), Some("skill://b/SKILL.md"));
        assert_eq!(after("resources", &c), None);
        assert_eq!(after("skills", "not a cursor!"), None);
        assert_eq!(after("skills", &"A".repeat(5000)), None);
    }
}
