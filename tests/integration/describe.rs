//! Describing a component without running it: the first-party providers,
//! the test guests, and components that are not providers of a version
//! this host runs.

use skillhost::provider::sources::builtin::{BUNDLED_PROVIDER, LOCAL_PROVIDER, REMOTE_PROVIDER};
use skillhost::sandbox::describe::{Description, Granted, describe};
use skillhost_tests::{HOSTILE_GUEST, PROBE_GUEST, runtime};

fn described(bytes: &[u8], granted: Option<&Granted>) -> Description {
    describe(runtime().engine(), bytes, granted).expect("a provider component is described")
}

fn imports(d: &Description) -> Vec<&str> {
    d.imports.iter().map(|i| i.name.as_str()).collect()
}

fn denied(d: &Description) -> Vec<&str> {
    d.denied.iter().map(|i| i.import.as_str()).collect()
}

#[test]
fn every_first_party_provider_exports_the_0_3_0_contract_and_links() {
    for (what, bytes) in [
        ("local", LOCAL_PROVIDER),
        ("bundled", BUNDLED_PROVIDER),
        ("remote", REMOTE_PROVIDER),
    ] {
        let d = described(bytes, None);
        assert_eq!(d.contract.name(), "skillhost:provider@0.3.0", "{what}");
        assert_eq!(d.link_error, None, "{what}");
        assert_eq!(d.size, bytes.len() as u64, "{what}");
        assert_eq!(
            d.sha256,
            skillhost_skill::digest::sha256_hex(bytes),
            "{what}"
        );
        let provider = d
            .exports
            .iter()
            .find(|e| e.name == "skillhost:provider/provider@0.3.0")
            .unwrap_or_else(|| panic!("{what} exports the provider interface"));
        for function in [
            "manifest",
            "read-resource-range",
            "init",
            "snapshot",
            "load",
            "list-resources",
            "read-resource",
        ] {
            assert!(
                provider.functions.iter().any(|f| f == function),
                "{what} exports {function}: {:?}",
                provider.functions
            );
        }
        assert!(
            imports(&d).contains(&"skillhost:provider/host@0.3.0"),
            "{what}: {:?}",
            imports(&d)
        );
    }
}

#[test]
fn the_local_provider_reads_through_files_which_a_root_grants() {
    let alone = described(LOCAL_PROVIDER, None);
    assert!(
        denied(&alone).contains(&"skillhost:provider/files@0.3.0"),
        "{:?}",
        alone.denied
    );
    let granted = Granted {
        roots: vec!["/srv/skills".into()],
        origins: Vec::new(),
    };
    let rooted = described(LOCAL_PROVIDER, Some(&granted));
    assert!(!denied(&rooted).contains(&"skillhost:provider/files@0.3.0"));
    let files = rooted
        .imports
        .iter()
        .find(|i| i.name == "skillhost:provider/files@0.3.0")
        .expect("the local provider imports files");
    for function in ["read-files", "read-frontmatters", "read-range"] {
        assert!(files.functions.iter().any(|f| f == function), "{function}");
    }
}

#[test]
fn the_remote_provider_needs_an_origin_and_gets_one_when_granted() {
    let http = "wasi:http/outgoing-handler@0.2.12";
    let alone = described(REMOTE_PROVIDER, None);
    assert!(imports(&alone).contains(&http), "{:?}", imports(&alone));
    assert!(denied(&alone).contains(&http));
    let granted = Granted {
        roots: Vec::new(),
        origins: vec!["http://127.0.0.1:8080".to_string()],
    };
    assert!(!denied(&described(REMOTE_PROVIDER, Some(&granted))).contains(&http));
}

#[test]
fn the_hostile_guest_is_told_its_sockets_environment_and_http_are_denied() {
    let d = described(HOSTILE_GUEST, None);
    assert_eq!(d.contract.version, "0.3.0");
    let denied = denied(&d);
    for wanted in [
        "wasi:sockets/tcp-create-socket@0.2.12",
        "wasi:cli/environment@0.2.12",
        "wasi:http/outgoing-handler@0.2.12",
    ] {
        assert!(denied.contains(&wanted), "{wanted} in {denied:?}");
    }
    assert!(d.denied.iter().all(|x| !x.reason.is_empty()));
}

#[test]
fn the_probe_guest_is_a_0_1_0_provider() {
    let d = described(PROBE_GUEST, None);
    assert_eq!(d.contract.name(), "skillhost:provider@0.1.0");
    assert_eq!(d.link_error, None);
}

/// A component exporting an interface `name` with one function.
fn exporting(name: &str) -> Vec<u8> {
    wat::parse_str(format!(
        r#"(component
            (core module $m (func (export "f")))
            (core instance $i (instantiate $m))
            (func $f (canon lift (core func $i "f")))
            (instance $provider (export "init" (func $f)))
            (export "{name}" (instance $provider))
        )"#
    ))
    .expect("valid component text")
}

#[test]
fn an_unknown_contract_version_is_refused_naming_the_versions_supported() {
    let error = describe(
        runtime().engine(),
        &exporting("skillhost:provider/provider@0.7.0"),
        None,
    )
    .expect_err("0.7.0 is not run by this host");
    let message = error.to_string();
    assert!(
        message.contains("skillhost:provider/provider@0.7.0"),
        "{message}"
    );
    assert!(
        message.contains("supported: skillhost:provider@0.1.0, skillhost:provider@0.2.0, skillhost:provider@0.3.0"),
        "{message}"
    );
}

#[test]
fn a_component_exporting_no_provider_is_not_a_provider() {
    let error = describe(
        runtime().engine(),
        &exporting("example:other/thing@1.0.0"),
        None,
    )
    .expect_err("not a provider");
    assert!(
        error.to_string().contains("not a skill provider"),
        "{error}"
    );
}

#[test]
fn a_0_1_0_export_of_the_wrong_shape_is_described_with_why_it_does_not_link() {
    let d = described(&exporting("skillhost:provider/provider@0.1.0"), None);
    let why = d.link_error.expect("a one-function provider does not link");
    assert!(
        why.contains("skillhost:provider/provider@0.1.0") || why.contains("snapshot"),
        "{why}"
    );
}

#[test]
fn bytes_that_are_not_a_component_are_an_error() {
    let error = describe(runtime().engine(), b"not wasm at all", None).expect_err("garbage");
    assert!(
        error.to_string().contains("not a valid provider component"),
        "{error}"
    );
}
