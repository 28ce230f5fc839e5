use super::*;
use std::os::unix::fs::PermissionsExt as _;

/// A token file with mode 600.
fn private_file(dir: &Path, text: &str) -> std::path::PathBuf {
    let path = dir.join("token");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path
}

#[test]
fn tokens_compare_whole() {
    assert!(same(b"abcdef", b"abcdef"));
    assert!(!same(b"abcdef", b"abcdeg"));
    assert!(!same(b"abc", b"abcdef"));
}

#[test]
fn a_strong_private_token_is_read_from_the_first_line() {
    let dir = tempfile::tempdir().unwrap();
    let token = "9f2c7e1a4b5d6c3e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e";
    let path = private_file(dir.path(), &format!("{token}\nignored\n"));
    assert_eq!(read_token(&path).unwrap(), token);
    assert!(read_token(&dir.path().join("missing")).is_err());
}

#[test]
fn a_token_file_others_may_read_is_refused_as_ssh_refuses_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = private_file(
        dir.path(),
        "9f2c7e1a4b5d6c3e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e\n",
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let refused = read_token(&path).unwrap_err().to_string();
    assert!(
        refused.contains("0644") && refused.contains("chmod 600"),
        "{refused}"
    );
}

#[test]
fn weak_tokens_are_refused_with_their_estimated_strength() {
    let dir = tempfile::tempdir().unwrap();
    for weak in ["short", &"a".repeat(16), &"a".repeat(200), &"ab".repeat(60)] {
        let path = private_file(dir.path(), &format!("{weak}\n"));
        let refused = read_token(&path).unwrap_err().to_string();
        assert!(
            refused.contains("bits") && refused.contains("openssl rand"),
            "{weak}: {refused}"
        );
    }
    // 32 hex digits are 128 bits; 64 clear it easily; so does base64 of 32 bytes.
    assert!(strength("0123456789abcdef0123456789abcdef") >= MIN_TOKEN_BITS);
    assert!(strength("q3J8v+Zx0LmN5pQr7sT9uV1wX2yA4bC6dE8fG0hI2jK=") >= MIN_TOKEN_BITS);
    assert!(strength("s3cret-token-for-the-test-0123") < MIN_TOKEN_BITS);
}

#[test]
fn a_token_path_naming_a_device_or_a_folder_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    for path in [Path::new("/dev/zero"), dir.path()] {
        let refused = read_token(path).unwrap_err().to_string();
        assert!(refused.contains("not a regular file"), "{refused}");
    }
    let big = dir.path().join("big");
    std::fs::write(&big, "t".repeat(100_000)).unwrap();
    let refused = read_token(&big).unwrap_err().to_string();
    assert!(refused.contains("larger than"), "{refused}");
}

#[test]
fn the_bearer_scheme_is_matched_in_any_case() {
    let token = "9f2c7e1a4b5d6c3e8f9a0b1c2d3e4f5a";
    let with = |value: &str| {
        http::Request::builder()
            .header(header::AUTHORIZATION, value)
            .body(())
            .unwrap()
    };
    for scheme in ["Bearer", "bearer", "BEARER"] {
        assert!(
            authorized(Some(token), &with(&format!("{scheme} {token}"))),
            "{scheme}"
        );
    }
    assert!(!authorized(Some(token), &with(&format!("Basic {token}"))));
    assert!(!authorized(Some(token), &with("Bearer wrong")));
    assert!(!authorized(Some(token), &http::Request::new(())));
    assert!(authorized(None, &http::Request::new(())));
}
