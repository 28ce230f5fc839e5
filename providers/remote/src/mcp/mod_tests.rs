use super::*;

#[test]
fn base64_decodes_with_or_without_padding_and_refuses_other_text() {
    assert_eq!(base64("aGVsbG8=").unwrap(), b"hello");
    assert_eq!(base64("aGVsbG8").unwrap(), b"hello");
    assert_eq!(base64("AAEC/w==").unwrap(), [0, 1, 2, 255]);
    assert_eq!(base64("").unwrap(), b"");
    assert_eq!(base64("a$=="), None);
    assert_eq!(base64("a"), None);
}

#[test]
fn contents_give_the_bytes_of_the_uri_asked_for() {
    let result = json!({"contents": [
        {"uri": "skill://a/x.bin", "blob": "AAE="},
        {"uri": "skill://a/SKILL.md", "text": "---\nname: a\n---\n"},
    ]});
    assert_eq!(contents(&result, "skill://a/x.bin").unwrap(), [0, 1]);
    assert_eq!(
        contents(&result, "skill://a/SKILL.md").unwrap(),
        b"---\nname: a\n---\n"
    );
    assert!(contents(&result, "skill://b/SKILL.md").is_err());
    assert!(contents(&json!({}), "skill://a/x.bin").is_err());
}
