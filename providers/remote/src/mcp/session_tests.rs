use super::*;

#[test]
fn a_known_version_with_the_extension_is_accepted() {
    let result = json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
    });
    assert_eq!(negotiate(&result).unwrap(), "2025-06-18");
}

#[test]
fn a_server_without_the_extension_is_refused_saying_so() {
    let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}});
    let message = negotiate(&result).unwrap_err();
    assert!(
        message.contains("does not offer the Skills Extension"),
        "{message}"
    );
    assert!(message.contains(EXTENSION), "{message}");
}

#[test]
fn a_version_this_client_does_not_speak_is_refused() {
    let result = json!({
        "protocolVersion": "2099-01-01",
        "capabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
    });
    assert!(negotiate(&result).unwrap_err().contains("2099-01-01"));
    assert!(negotiate(&json!({})).is_err());
}

#[test]
fn the_stateless_revision_is_found_with_server_discover() {
    let result = json!({
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
    });
    assert!(discovered(&result).is_ok());
    let without = json!({"supportedVersions": ["2026-07-28"], "capabilities": {}});
    assert!(
        discovered(&without)
            .unwrap_err()
            .contains("does not offer the Skills Extension")
    );
    assert!(discovered(&json!({"supportedVersions": ["2099-01-01"]})).is_err());
}

#[test]
fn stateless_requests_carry_the_envelope_beside_their_params() {
    let params = with_envelope(json!({"uri": "skill://a/SKILL.md"}));
    assert_eq!(params["uri"], "skill://a/SKILL.md");
    assert_eq!(
        params["_meta"]["io.modelcontextprotocol/protocolVersion"],
        STATELESS
    );
    assert!(
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            .get(EXTENSION)
            .is_some()
    );
}
