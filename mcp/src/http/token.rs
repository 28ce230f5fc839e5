//! The bearer token: read from a file only its owner can read, strong
//! enough not to be guessed, and compared in constant time.

use crate::error::ServeError;
use http::{Request, header};
use std::path::Path;

/// Least strength accepted, in bits, estimated from the token's length and
/// the characters it uses: what `openssl rand -hex 32` easily clears.
pub const MIN_TOKEN_BITS: f64 = 128.0;

/// Largest token file read, in bytes.
const MAX_TOKEN_FILE_BYTES: u64 = 64 * 1024;

/// Reads a bearer token from `path`: its first line, trimmed. Refused, as
/// ssh refuses such a key, when others may read the file; refused when it
/// is too weak to keep others out.
pub fn read_token(path: &Path) -> Result<String, ServeError> {
    let fail = |reason: String| ServeError::Token {
        path: path.to_path_buf(),
        reason,
    };
    // A regular file of a few KiB at most: a FIFO or `/dev/zero` named by
    // mistake is refused instead of blocking or filling memory.
    let bytes = skillhost::paths::read_regular(path, MAX_TOKEN_FILE_BYTES)
        .map_err(|e| fail(format!("cannot read it: {e}")))?;
    private(path).map_err(fail)?;
    let text = String::from_utf8(bytes).map_err(|_| fail("it is not UTF-8 text".to_string()))?;
    let token = text.lines().next().unwrap_or_default().trim().to_string();
    if !token.chars().all(|c| c.is_ascii_graphic()) {
        return Err(fail(
            "the token may only hold visible ASCII characters".to_string(),
        ));
    }
    let bits = strength(&token);
    if bits < MIN_TOKEN_BITS {
        return Err(fail(format!(
            "the token carries about {bits:.0} bits, fewer than the {MIN_TOKEN_BITS:.0} \
             needed (make one with `openssl rand -hex 32`)"
        )));
    }
    Ok(token)
}

/// Why others may read the file at `path`, if they may.
#[cfg(unix)]
fn private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(path)
        .map_err(|e| format!("cannot read its permissions: {e}"))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "its permissions are {:04o}: others may read it; run `chmod 600 {}`",
            mode & 0o7777,
            path.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn private(_: &Path) -> Result<(), String> {
    Ok(())
}

/// An estimate of the bits a token carries: its length times the bits of
/// the alphabet it draws from, that alphabet being no larger than the
/// distinct characters it actually uses (so `aaaa…` or `abab…` counts for
/// little however long it is).
pub fn strength(token: &str) -> f64 {
    let chars: Vec<char> = token.chars().collect();
    let hex = chars.iter().all(char::is_ascii_hexdigit);
    let classes = if hex {
        16
    } else {
        let has = |f: fn(&char) -> bool| chars.iter().any(f);
        [
            (has(char::is_ascii_lowercase), 26),
            (has(char::is_ascii_uppercase), 26),
            (has(char::is_ascii_digit), 10),
            (has(char::is_ascii_punctuation), 32),
        ]
        .iter()
        .filter(|(present, _)| *present)
        .map(|(_, size)| size)
        .sum()
    };
    let mut distinct = chars.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let alphabet = classes.min(distinct.len());
    if alphabet < 2 {
        return 0.0;
    }
    chars.len() as f64 * (alphabet as f64).log2()
}

/// Compares in time independent of where the inputs differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Whether `request` carries the token (always, when none is required).
/// The scheme is matched without regard to case (RFC 6750 §2.1 through
/// RFC 9110's case-insensitive auth-scheme).
pub(crate) fn authorized<B>(token: Option<&str>, request: &Request<B>) -> bool {
    let Some(token) = token else {
        return true;
    };
    request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, given) = v.trim_start().split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then_some(given)
        })
        .is_some_and(|given| same(given.trim().as_bytes(), token.as_bytes()))
}

#[cfg(test)]
#[path = "token_tests.rs"]
mod tests;
