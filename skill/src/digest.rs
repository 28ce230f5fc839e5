//! Content digests as skills carry them: `sha256:<64 lowercase hex digits>`.
//!
//! The same spelling is used for resource listings, mirror indexes, catalog
//! messages and component pins, so every producer and every checker goes
//! through these functions.

use sha2::{Digest, Sha256};

/// The prefix of every digest.
pub const PREFIX: &str = "sha256:";
/// Length of a digest in bytes: the prefix and 64 hex digits.
pub const LEN: usize = PREFIX.len() + 64;

/// `sha256:<hex>` of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(LEN);
    out.push_str(PREFIX);
    push_hex(&mut out, &Sha256::digest(bytes));
    out
}

/// The 64 lowercase hex digits of the SHA-256 of `bytes`, without prefix.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Whether `text` is a well-formed digest: the prefix and 64 lowercase hex
/// digits, nothing else.
pub fn is_sha256(text: &str) -> bool {
    text.len() == LEN
        && text.starts_with(PREFIX)
        && text[PREFIX.len()..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `bytes` hash to `digest` (a well-formed `sha256:` digest).
pub fn matches(bytes: &[u8], digest: &str) -> bool {
    is_sha256(digest) && sha256(bytes) == digest
}

/// Lowercase hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    push_hex(&mut out, bytes);
    out
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_prefixed_lowercase_sha256() {
        assert_eq!(
            sha256(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(sha256_hex(b"abc"), sha256(b"abc")[PREFIX.len()..]);
        assert!(is_sha256(&sha256(b"")));
        assert!(matches(b"abc", &sha256(b"abc")));
        assert!(!matches(b"abd", &sha256(b"abc")));
    }

    #[test]
    fn malformed_digests_are_refused() {
        let good = sha256(b"x");
        for bad in [
            "md5:abc".to_string(),
            good.to_uppercase(),
            good[..LEN - 1].to_string(),
            format!("{good}0"),
            format!("sha256:{}", "g".repeat(64)),
            good.replacen("sha256:", "sha256 ", 1),
        ] {
            assert!(!is_sha256(&bad), "{bad}");
        }
    }
}
