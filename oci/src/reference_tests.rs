use super::*;

const DIGEST: &str = "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

#[test]
fn a_tag_a_digest_or_both_are_read_and_written_back_alike() {
    let tagged = ComponentRef::parse("oci://ghcr.io/acme/greeting:1.2.0").unwrap();
    assert_eq!(tagged.registry, "ghcr.io");
    assert_eq!(tagged.repository, "acme/greeting");
    assert_eq!(tagged.tag.as_deref(), Some("1.2.0"));
    assert_eq!(tagged.digest, None);
    let both = format!("oci://localhost:5000/acme/greeting:1@{DIGEST}");
    let pinned = ComponentRef::parse(&both).unwrap();
    assert_eq!(pinned.registry, "localhost:5000");
    assert_eq!(pinned.tag.as_deref(), Some("1"));
    assert_eq!(pinned.to_string(), both);
    let digest_only = ComponentRef::parse(&format!("oci://r.example/a/b/c@{DIGEST}")).unwrap();
    assert_eq!(digest_only.repository, "a/b/c");
    assert_eq!(digest_only.tag, None);
    assert_eq!(digest_only.unpinned(), None, "nothing to follow");
    assert_eq!(
        pinned.unpinned().unwrap().to_string(),
        "oci://localhost:5000/acme/greeting:1"
    );
}

#[test]
fn malformed_references_are_refused_with_the_reason() {
    for (text, why) in [
        ("https://ghcr.io/a/b:1", "oci://"),
        ("oci://ghcr.io", "no repository"),
        ("oci://ghcr.io/acme/greeting", "no version"),
        ("oci://ghcr.io/Acme/greeting:1", "lowercase"),
        ("oci://ghcr.io/acme/../x:1", "lowercase"),
        ("oci://ghcr.io/acme/greeting:-bad", "tag"),
        ("oci://ghcr.io/acme/greeting@sha256:abc", "64 lowercase hex"),
        ("oci://gh cr.io/acme/greeting:1", "host name"),
        ("oci:///acme/greeting:1", "host name"),
    ] {
        let e = ComponentRef::parse(text).unwrap_err().to_string();
        assert!(e.contains(why), "{text}: {e}");
    }
}

#[test]
fn only_this_machine_counts_as_loopback() {
    for (text, loopback) in [
        ("oci://localhost:5000/a/b:1", true),
        ("oci://127.0.0.1:5000/a/b:1", true),
        ("oci://127.1.2.3/a/b:1", true),
        ("oci://[::1]:5000/a/b:1", true),
        ("oci://localhost.example.com/a/b:1", false),
        ("oci://10.0.0.1:5000/a/b:1", false),
        ("oci://ghcr.io/a/b:1", false),
    ] {
        assert_eq!(
            ComponentRef::parse(text).unwrap().is_loopback(),
            loopback,
            "{text}"
        );
    }
}

#[test]
fn an_overlong_reference_is_refused_with_its_start_and_no_control_characters() {
    let huge = format!("oci://ghcr.io/{}:1", "a/".repeat(500_000) + "b");
    let e = ComponentRef::parse(&huge).unwrap_err().to_string();
    assert!(e.contains("at most") && e.len() < 1_000, "{}", &e[..200]);
    let long = format!("oci://ghcr.io/{}:1", "a".repeat(300));
    let e = ComponentRef::parse(&long).unwrap_err().to_string();
    assert!(e.contains("longer than 255"), "{e}");
    let e = ComponentRef::parse("oci://ghcr.io/a\u{1b}[31m:1")
        .unwrap_err()
        .to_string();
    assert!(!e.contains('\u{1b}'), "{e:?}");
}
