//! Publishing and pulling against the real registry.

use skillhost_oci::{ComponentRef, Credentials, Digest, Error, Options, Registry, Store};
use skillhost_tests::registry::{LocalRegistry, basic, component, plain, runtime};

#[test]
fn a_published_component_pulls_back_by_tag_and_by_digest_and_a_moved_tag_leaves_the_pin_alone() {
    let registry = LocalRegistry::start();
    let rt = runtime();
    let tag = registry.reference("acme/greeting:1");
    let client = registry.client(&tag);
    let v1 = component(1, 5000);
    let pushed = rt
        .block_on(client.push(&v1, &tag, &Credentials::Anonymous))
        .unwrap();

    let pulled = rt
        .block_on(client.pull(&tag, &Credentials::Anonymous))
        .unwrap();
    assert_eq!(pulled.component, v1);
    assert_eq!(pulled.resolved.digest, pushed);
    assert_eq!(pulled.resolved.manifest.layer, Digest::of(&v1));

    // Kept by content: what runs comes from the store, not the registry.
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(dir.path());
    let kept = store.put(&pulled.component).unwrap();
    assert_eq!(store.get(&kept).unwrap(), v1);

    // The tag moves to version 2; the pinned reference still gives 1.
    let v2 = component(2, 5000);
    let moved = rt
        .block_on(client.push(&v2, &tag, &Credentials::Anonymous))
        .unwrap();
    assert_ne!(moved, pushed);
    let now = rt
        .block_on(client.resolve(&tag, &Credentials::Anonymous))
        .unwrap();
    assert_eq!(now.digest, moved);
    let pin = tag.pinned(pushed.clone());
    let again = rt
        .block_on(client.pull(&pin, &Credentials::Anonymous))
        .unwrap();
    assert_eq!(again.component, v1);

    // A digest the registry does not hold is named as not found.
    let unknown = tag.pinned(Digest::of(b"never pushed"));
    match rt.block_on(client.pull(&unknown, &Credentials::Anonymous)) {
        Err(Error::NotFound { reference }) => assert!(reference.contains("acme/greeting")),
        other => panic!("{other:?}"),
    }
    let missing = registry.reference("acme/missing:1");
    assert!(matches!(
        rt.block_on(client.resolve(&missing, &Credentials::Anonymous)),
        Err(Error::NotFound { .. })
    ));
}

#[test]
fn a_component_over_the_cap_is_refused_naming_the_reference() {
    let registry = LocalRegistry::start();
    let rt = runtime();
    let tag = registry.reference("acme/large:1");
    rt.block_on(
        registry
            .client(&tag)
            .push(&component(1, 300_000), &tag, &Credentials::Anonymous),
    )
    .unwrap();
    let small = Registry::new(
        &tag,
        Options {
            max_component_bytes: 100_000,
            ..plain()
        },
    )
    .unwrap();
    let e = rt
        .block_on(small.pull(&tag, &Credentials::Anonymous))
        .unwrap_err();
    assert!(matches!(e, Error::TooLarge { what: "layer", .. }), "{e}");
    assert!(e.to_string().contains("acme/large:1"), "{e}");
}

#[test]
fn basic_auth_admits_the_right_credentials_only() {
    let registry = LocalRegistry::with_basic_auth();
    let rt = runtime();
    let tag = registry.reference("acme/private:1");
    let client = registry.client(&tag);
    let bytes = component(1, 2000);
    rt.block_on(client.push(&bytes, &tag, &basic())).unwrap();
    let pulled = rt
        .block_on(registry.client(&tag).pull(&tag, &basic()))
        .unwrap();
    assert_eq!(pulled.component, bytes);

    let wrong = Credentials::Basic {
        user: "publisher".into(),
        password: "wrong horse".into(),
    };
    for credentials in [wrong, Credentials::Anonymous] {
        let e = rt
            .block_on(registry.client(&tag).pull(&tag, &credentials))
            .unwrap_err();
        assert!(matches!(e, Error::Unauthorized { .. }), "{e}");
        assert!(!e.to_string().contains("horse"), "{e}");
    }
}

#[test]
fn bearer_tokens_admit_what_their_issuer_granted_only() {
    let registry = LocalRegistry::with_token_auth();
    let rt = runtime();
    let tag = registry.reference("acme/private:1");
    let bytes = component(1, 2000);
    let push = Credentials::Bearer(registry.token("acme/private", &["pull", "push"]));
    rt.block_on(registry.client(&tag).push(&bytes, &tag, &push))
        .unwrap();
    let pull = Credentials::Bearer(registry.token("acme/private", &["pull"]));
    let pulled = rt
        .block_on(registry.client(&tag).pull(&tag, &pull))
        .unwrap();
    assert_eq!(pulled.component, bytes);

    // A pull-only token cannot push; another repository's, another
    // issuer's or none at all cannot pull. No answer repeats the token.
    let other_tag = registry.reference("acme/private:2");
    let e = rt
        .block_on(registry.client(&other_tag).push(&bytes, &other_tag, &pull))
        .unwrap_err();
    assert!(matches!(e, Error::Unauthorized { .. }), "{e}");
    let refused = [
        registry.token("acme/other", &["pull"]),
        registry.untrusted_token("acme/private", &["pull"]),
    ];
    for credentials in refused
        .iter()
        .map(|t| Credentials::Bearer(t.clone()))
        .chain([Credentials::Anonymous])
    {
        let e = rt
            .block_on(registry.client(&tag).pull(&tag, &credentials))
            .unwrap_err();
        assert!(matches!(e, Error::Unauthorized { .. }), "{e}");
        for token in &refused {
            assert!(!e.to_string().contains(&token[token.len() - 20..]), "{e}");
        }
    }
}

#[test]
fn plain_http_is_refused_beyond_loopback() {
    let remote = ComponentRef::parse("oci://registry.example.com/acme/greeting:1").unwrap();
    assert!(matches!(
        Registry::new(&remote, plain()),
        Err(Error::PlainHttp { .. })
    ));
    assert!(Registry::new(&remote, Options::default()).is_ok());
}
