use super::*;

#[test]
fn the_supported_contract_is_found_among_the_exports() {
    let contract =
        contract_of(["wasi:cli/run@0.2.12", "skillhost:provider/provider@0.1.0"]).unwrap();
    assert_eq!(contract.version, "0.1.0");
    assert_eq!(contract.name(), "skillhost:provider@0.1.0");
    assert_eq!(contract.to_string(), contract.name());
}

#[test]
fn an_unknown_contract_version_is_an_error_naming_the_supported_ones() {
    let message = contract_of(["skillhost:provider/provider@0.9.0"])
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("skillhost:provider/provider@0.9.0"),
        "{message}"
    );
    assert!(
        message.contains("supported: skillhost:provider@0.1.0"),
        "{message}"
    );
}

#[test]
fn a_component_without_the_provider_interface_is_not_a_provider() {
    for exports in [
        vec![],
        vec!["wasi:cli/run@0.2.12"],
        vec!["skillhost:provider/provider"],
    ] {
        let message = contract_of(exports.iter().copied())
            .unwrap_err()
            .to_string();
        assert!(message.contains("skillhost:provider@0.1.0"), "{message}");
        assert_eq!(
            message.contains("a WASI command"),
            exports.contains(&"wasi:cli/run@0.2.12"),
            "{message}"
        );
    }
}

#[test]
fn versions_split_at_the_last_at_sign() {
    assert_eq!(
        split_version("wasi:cli/environment@0.2.12"),
        ("wasi:cli/environment", Some("0.2.12"))
    );
    assert_eq!(split_version("plain"), ("plain", None));
}

#[test]
fn without_grants_files_http_sockets_and_the_environment_are_denied() {
    let nothing = Granted::default();
    for import in [
        "wasi:cli/environment@0.2.12",
        "wasi:sockets/tcp-create-socket@0.2.12",
        "wasi:sockets/ip-name-lookup@0.2.0",
        "wasi:http/outgoing-handler@0.2.12",
        "wasi:filesystem/preopens@0.2.12",
        "skillhost:provider/files@0.1.0",
        "wasi:cli/stdout@0.2.12",
    ] {
        assert!(denial(import, &nothing).is_some(), "{import} is denied");
    }
    for import in [
        "wasi:cli/stderr@0.2.12",
        "wasi:io/streams@0.2.12",
        "wasi:filesystem/types@0.2.12",
        "skillhost:provider/host@0.1.0",
    ] {
        assert_eq!(denial(import, &nothing), None, "{import} is not denied");
    }
}

#[test]
fn granted_roots_and_origins_lift_their_denials_and_nothing_else() {
    let granted = Granted {
        roots: vec!["/srv/skills".into()],
        origins: vec!["https://skills.example.com:443".to_string()],
    };
    for import in [
        "wasi:http/outgoing-handler@0.2.12",
        "wasi:filesystem/preopens@0.2.12",
        "skillhost:provider/files@0.1.0",
    ] {
        assert_eq!(denial(import, &granted), None, "{import} is granted");
    }
    assert!(denial("wasi:sockets/tcp-create-socket@0.2.12", &granted).is_some());
    assert!(denial("wasi:cli/environment@0.2.12", &granted).is_some());
}
