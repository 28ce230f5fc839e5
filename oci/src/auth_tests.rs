use super::*;

use std::path::Path;

fn docker(text: &str, registry: &str) -> Result<Credentials, Error> {
    from_docker_config(Path::new("config.json"), text, registry)
}

#[test]
fn docker_auths_give_basic_or_bearer_credentials_for_their_registry_only() {
    // "alice:s3cret"
    let text = r#"{"auths":{"localhost:5000":{"auth":"YWxpY2U6czNjcmV0"},
            "https://ghcr.io":{"identitytoken":"tok"},
            "r.example":{"username":"bob","password":"pw"}}}"#;
    assert_eq!(
        docker(text, "localhost:5000").unwrap(),
        Credentials::Basic {
            user: "alice".into(),
            password: "s3cret".into()
        }
    );
    assert_eq!(
        docker(text, "ghcr.io").unwrap(),
        Credentials::Bearer("tok".into())
    );
    assert_eq!(
        docker(text, "r.example").unwrap(),
        Credentials::Basic {
            user: "bob".into(),
            password: "pw".into()
        }
    );
    assert_eq!(docker(text, "other.io").unwrap(), Credentials::Anonymous);
}

#[test]
fn credentials_never_show_in_debug_output_or_errors() {
    let basic = Credentials::Basic {
        user: "alice".into(),
        password: "s3cret".into(),
    };
    assert!(!format!("{basic:?}").contains("s3cret"));
    assert!(!format!("{:?}", Credentials::Bearer("tok-123".into())).contains("tok-123"));
    let text = r#"{"auths":{"localhost:5000":{"auth":"not base64 s3cret!"}}}"#;
    let e = docker(text, "localhost:5000").unwrap_err().to_string();
    assert!(e.contains("not base64") && !e.contains("s3cret"), "{e}");
}

#[test]
fn a_token_file_holds_one_token() {
    let path = Path::new("token");
    assert_eq!(
        from_token_file(path, "abc.def\n").unwrap(),
        Credentials::Bearer("abc.def".into())
    );
    assert!(from_token_file(path, "one\ntwo\n").is_err());
    assert!(from_token_file(path, "").is_err());
}
