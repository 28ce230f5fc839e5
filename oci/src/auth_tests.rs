use super::*;

fn config(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn docker_auths_give_basic_or_bearer_credentials_for_their_registry_only() {
    // "alice:s3cret"
    let (_d, path) = config(
        r#"{"auths":{"localhost:5000":{"auth":"YWxpY2U6czNjcmV0"},
            "https://ghcr.io":{"identitytoken":"tok"},
            "r.example":{"username":"bob","password":"pw"}}}"#,
    );
    assert_eq!(
        from_docker_config(&path, "localhost:5000").unwrap(),
        Credentials::Basic {
            user: "alice".into(),
            password: "s3cret".into()
        }
    );
    assert_eq!(
        from_docker_config(&path, "ghcr.io").unwrap(),
        Credentials::Bearer("tok".into())
    );
    assert_eq!(
        from_docker_config(&path, "r.example").unwrap(),
        Credentials::Basic {
            user: "bob".into(),
            password: "pw".into()
        }
    );
    assert_eq!(
        from_docker_config(&path, "other.io").unwrap(),
        Credentials::Anonymous
    );
}

#[test]
fn credentials_never_show_in_debug_output_or_errors() {
    let basic = Credentials::Basic {
        user: "alice".into(),
        password: "s3cret".into(),
    };
    assert!(!format!("{basic:?}").contains("s3cret"));
    assert!(!format!("{:?}", Credentials::Bearer("tok-123".into())).contains("tok-123"));
    let (_d, path) = config(r#"{"auths":{"localhost:5000":{"auth":"not base64 s3cret!"}}}"#);
    let e = from_docker_config(&path, "localhost:5000")
        .unwrap_err()
        .to_string();
    assert!(e.contains("not base64") && !e.contains("s3cret"), "{e}");
}

#[test]
fn a_token_file_holds_one_token() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("token");
    std::fs::write(&path, "abc.def\n").unwrap();
    assert_eq!(
        from_token_file(&path).unwrap(),
        Credentials::Bearer("abc.def".into())
    );
    std::fs::write(&path, "one\ntwo\n").unwrap();
    assert!(from_token_file(&path).is_err());
    std::fs::write(&path, "").unwrap();
    assert!(from_token_file(&path).is_err());
}
