//! Credentials for a registry: none, basic (user and password) or a bearer
//! token; read from `~/.docker/config.json`'s `auths` or from a token file.
//! They are never printed: the `Debug` form names the kind only.

use crate::error::Error;
use base64::Engine as _;
use std::fmt;
use std::path::Path;

/// How to authenticate to a registry.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum Credentials {
    /// No credentials.
    #[default]
    Anonymous,
    /// HTTP basic.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
    /// A bearer token.
    Bearer(String),
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Credentials::Anonymous => "Anonymous",
            Credentials::Basic { .. } => "Basic(<redacted>)",
            Credentials::Bearer(_) => "Bearer(<redacted>)",
        })
    }
}

impl Credentials {
    pub(crate) fn to_oci(&self) -> oci_client::secrets::RegistryAuth {
        use oci_client::secrets::RegistryAuth;
        match self {
            Credentials::Anonymous => RegistryAuth::Anonymous,
            Credentials::Basic { user, password } => {
                RegistryAuth::Basic(user.clone(), password.clone())
            }
            Credentials::Bearer(token) => RegistryAuth::Bearer(token.clone()),
        }
    }
}

/// The bearer token a token file at `path` holds: its text, trimmed, one
/// line. The caller reads the file (without waiting on a FIFO or a device
/// planted there); `path` only names it in errors.
pub fn from_token_file(path: &Path, text: &str) -> Result<Credentials, Error> {
    let token = text.trim().to_string();
    if token.is_empty() || token.chars().any(char::is_control) {
        return Err(Error::Credentials {
            path: path.to_path_buf(),
            reason: "holds no token (empty, or more than one line)".to_string(),
        });
    }
    Ok(Credentials::Bearer(token))
}

/// The credentials a Docker config file (`~/.docker/config.json`) holds for
/// `registry` in its `auths`: `auth` (base64 `user:password`),
/// `username`/`password`, or `identitytoken`/`registrytoken` as a bearer
/// token. Anonymous when it names the registry nowhere; a credential helper
/// (`credsStore`) is not run. `text` is the file's content, read by the
/// caller as for [`from_token_file`].
pub fn from_docker_config(path: &Path, text: &str, registry: &str) -> Result<Credentials, Error> {
    let refuse = |reason: &str| Error::Credentials {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    let config: serde_json::Value =
        serde_json::from_str(text).map_err(|e| refuse(&format!("not JSON: {e}")))?;
    let Some(auths) = config.get("auths").and_then(|a| a.as_object()) else {
        return Ok(Credentials::Anonymous);
    };
    let entry = auths.iter().find_map(|(key, value)| {
        let host = key
            .trim_start_matches("https://")
            .trim_start_matches("http://")
            .split('/')
            .next()
            .unwrap_or_default();
        (host == registry).then_some(value)
    });
    let Some(entry) = entry else {
        return Ok(Credentials::Anonymous);
    };
    let text = |key: &str| {
        entry
            .get(key)
            .and_then(|v| v.as_str())
            .filter(|s| !s.is_empty())
    };
    if let Some(token) = text("registrytoken").or_else(|| text("identitytoken")) {
        return Ok(Credentials::Bearer(token.to_string()));
    }
    if let (Some(user), Some(password)) = (text("username"), text("password")) {
        return Ok(Credentials::Basic {
            user: user.to_string(),
            password: password.to_string(),
        });
    }
    if let Some(auth) = text("auth") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(auth.trim())
            .map_err(|_| refuse(&format!("the auth of {registry} is not base64")))?;
        let decoded = String::from_utf8(decoded)
            .map_err(|_| refuse(&format!("the auth of {registry} is not text")))?;
        let (user, password) = decoded
            .split_once(':')
            .ok_or_else(|| refuse(&format!("the auth of {registry} is not user:password")))?;
        return Ok(Credentials::Basic {
            user: user.to_string(),
            password: password.to_string(),
        });
    }
    Err(refuse(&format!(
        "the entry for {registry} holds no auth, username/password or token"
    )))
}

#[cfg(test)]
#[path = "auth_tests.rs"]
mod tests;
