//! What a file is sent as: its MIME type (by extension) and whether its
//! bytes go as text or as base64.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rmcp::model::ResourceContents;

/// The MIME type of a `SKILL.md`.
pub const MARKDOWN: &str = "text/markdown";

/// The MIME type for a file name, when its extension says.
pub fn mime_type(file_name: &str) -> Option<&'static str> {
    let (_, extension) = file_name.rsplit_once('.')?;
    Some(match extension.to_ascii_lowercase().as_str() {
        "md" | "markdown" => MARKDOWN,
        "txt" | "text" => "text/plain",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "xml" => "application/xml",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "py" => "text/x-python",
        "rs" => "text/x-rust",
        "sh" | "bash" => "application/x-sh",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => return None,
    })
}

/// Whether a file of this type is text when its bytes are UTF-8; unknown
/// types are judged by their bytes alone.
fn textual(mime: Option<&str>) -> bool {
    match mime {
        None => true,
        Some(m) => {
            m.starts_with("text/")
                || matches!(
                    m,
                    "application/json"
                        | "application/yaml"
                        | "application/toml"
                        | "application/xml"
                        | "application/x-sh"
                        | "image/svg+xml"
                )
        }
    }
}

/// Whether `bytes` hold a control character other than tab, newline and
/// carriage return: JSON writes each as a six-byte escape, so such text
/// goes as base64 (a third larger) instead of growing up to six-fold.
fn has_controls(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'))
}

/// The contents of one read: UTF-8 text (no control character but tab
/// and line ends) of a textual type as text, everything else as base64,
/// so the bytes a client hashes are the file's own either way.
pub fn contents(uri: &str, mime: Option<&str>, bytes: Vec<u8>) -> ResourceContents {
    let blob = |bytes: Vec<u8>| ResourceContents::blob(STANDARD.encode(bytes), uri);
    let contents = if textual(mime) && !has_controls(&bytes) {
        match String::from_utf8(bytes) {
            Ok(text) => ResourceContents::text(text, uri),
            Err(e) => blob(e.into_bytes()),
        }
    } else {
        blob(bytes)
    };
    let is_text = matches!(contents, ResourceContents::TextResourceContents { .. });
    contents.with_mime_type(match (mime, is_text) {
        (Some(m), _) => m,
        (None, true) => "text/plain",
        (None, false) => "application/octet-stream",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_stays_text_and_binary_goes_as_base64() {
        let md = contents("skill://a/SKILL.md", Some(MARKDOWN), b"# A\n".to_vec());
        assert!(
            matches!(md, ResourceContents::TextResourceContents { ref text, .. } if text == "# A\n")
        );
        let png = contents("skill://a/x.png", mime_type("x.png"), vec![0x89, b'P', 0]);
        assert!(
            matches!(png, ResourceContents::BlobResourceContents { ref blob, .. } if blob == "iVAA")
        );
        let bad = contents("skill://a/x.md", Some(MARKDOWN), vec![0xff, 0xfe]);
        assert!(matches!(bad, ResourceContents::BlobResourceContents { .. }));
        // Control bytes would grow six-fold as JSON escapes: base64 instead.
        let controls = contents("skill://a/x.md", Some(MARKDOWN), vec![1; 300]);
        assert!(matches!(
            controls,
            ResourceContents::BlobResourceContents { .. }
        ));
        let tabs = contents("skill://a/x.md", Some(MARKDOWN), b"a\tb\r\nc\n".to_vec());
        assert!(matches!(
            tabs,
            ResourceContents::TextResourceContents { .. }
        ));
        assert_eq!(mime_type("SKILL.md"), Some(MARKDOWN));
        assert_eq!(mime_type("Makefile"), None);
    }
}
