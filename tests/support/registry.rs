//! A real OCI registry (Debian's `docker-registry`, the CNCF distribution
//! registry) on a free loopback port, in a temporary folder, stopped when
//! dropped; anonymous, behind htpasswd basic auth, or behind bearer tokens
//! (JWTs the registry checks against an issuer certificate, as a token
//! service would issue them).

use skillhost_oci::{ComponentRef, Credentials, Options, Registry};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `docker-registry`.
pub struct LocalRegistry {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    dir: tempfile::TempDir,
}

/// How a registry asks its clients who they are.
enum Auth {
    Anonymous,
    Basic,
    Token,
}

/// The token service and issuer a token-auth registry trusts.
const SERVICE: &str = "skillhost-tests";
const ISSUER: &str = "skillhost-tests-issuer";

/// The user and password of the registry behind basic auth.
pub const USER: &str = "publisher";
/// See [`USER`].
pub const PASSWORD: &str = "correct horse";

fn binary() -> PathBuf {
    let path = Path::new("/usr/bin/docker-registry");
    assert!(
        path.exists(),
        "docker-registry is not installed: scripts/ensure-registry installs it"
    );
    path.to_path_buf()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl LocalRegistry {
    /// An anonymous registry.
    pub fn start() -> LocalRegistry {
        Self::start_with(Auth::Anonymous)
    }

    /// A registry that asks for [`USER`] and [`PASSWORD`].
    pub fn with_basic_auth() -> LocalRegistry {
        Self::start_with(Auth::Basic)
    }

    /// A registry that admits bearer tokens its issuer signed, for the
    /// repositories and actions each names ([`LocalRegistry::token`]).
    pub fn with_token_auth() -> LocalRegistry {
        Self::start_with(Auth::Token)
    }

    fn start_with(auth: Auth) -> LocalRegistry {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let auth_section = match auth {
            Auth::Anonymous => String::new(),
            Auth::Basic => {
                let out = Command::new("htpasswd")
                    .args(["-Bbn", USER, PASSWORD])
                    .output()
                    .expect("htpasswd (apache2-utils) runs");
                assert!(out.status.success(), "htpasswd failed");
                std::fs::write(dir.path().join("htpasswd"), &out.stdout).unwrap();
                format!(
                    "auth:\n  htpasswd:\n    realm: skillhost-tests\n    path: {}\n",
                    dir.path().join("htpasswd").display()
                )
            }
            Auth::Token => {
                issuer(&dir.path().join("issuer"));
                // The realm is never asked: a client holding a token sends
                // it as it is.
                format!(
                    "auth:\n  token:\n    realm: http://{addr}/token\n    service: {SERVICE}\n    issuer: {ISSUER}\n    rootcertbundle: {}\n",
                    dir.path().join("issuer/cert.pem").display()
                )
            }
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: {addr}\n{auth_section}",
            dir.path().join("data").display()
        );
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).unwrap();
        let child = Command::new(binary())
            .arg("serve")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("docker-registry starts");
        let registry = LocalRegistry { child, addr, dir };
        registry.wait_ready();
        registry
    }

    fn wait_ready(&self) {
        // Generous: a loaded machine starts it slowly, and readiness is
        // polled, never assumed after a fixed sleep.
        let end = Instant::now() + Duration::from_secs(60);
        while Instant::now() < end {
            if std::net::TcpStream::connect(&self.addr).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!(
            "docker-registry did not listen on {} within 60 s",
            self.addr
        );
    }

    /// `oci://ADDR/PATH`.
    pub fn reference(&self, path: &str) -> ComponentRef {
        ComponentRef::parse(&format!("oci://{}/{path}", self.addr)).unwrap()
    }

    /// A bearer token this registry's issuer signed, admitting `actions`
    /// (`pull`, `push`) on `repository` for an hour.
    pub fn token(&self, repository: &str, actions: &[&str]) -> String {
        signed_token(&self.dir.path().join("issuer"), repository, actions)
    }

    /// A token shaped like [`LocalRegistry::token`]'s but signed by an
    /// issuer this registry does not trust.
    pub fn untrusted_token(&self, repository: &str, actions: &[&str]) -> String {
        let other = self.dir.path().join("other-issuer");
        if !other.exists() {
            issuer(&other);
        }
        signed_token(&other, repository, actions)
    }

    /// A plain-HTTP client for this registry.
    pub fn client(&self, reference: &ComponentRef) -> Registry {
        Registry::new(reference, plain()).unwrap()
    }
}

impl Drop for LocalRegistry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Plain HTTP, a short deadline.
pub fn plain() -> Options {
    Options {
        plain_http: true,
        deadline: Duration::from_secs(30),
        ..Options::default()
    }
}

/// The credentials of the basic-auth registry.
pub fn basic() -> Credentials {
    Credentials::Basic {
        user: USER.to_string(),
        password: PASSWORD.to_string(),
    }
}

/// Bytes that look like a component to a registry (a registry never looks
/// inside; whether they are one is the host's `describe`).
pub fn component(version: u8, len: usize) -> Vec<u8> {
    let mut bytes = b"\0asm\x0d\0\x01\0".to_vec();
    bytes.extend((0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(version)));
    bytes
}

/// A runtime for the async client.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// A key and self-signed certificate for an issuer, in `dir`.
fn issuer(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let out = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        ])
        .args(["-subj", &format!("/CN={ISSUER}")])
        .arg("-keyout")
        .arg(dir.join("key.pem"))
        .arg("-out")
        .arg(dir.join("cert.pem"))
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl req failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A JWT as a token service issues it (RS256, the certificate in `x5c`),
/// signed with the key in `dir`.
fn signed_token(dir: &Path, repository: &str, actions: &[&str]) -> String {
    use base64::Engine as _;
    use std::io::Write as _;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let pem = std::fs::read_to_string(dir.join("cert.pem")).unwrap();
    let der: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    let header = serde_json::json!({"alg": "RS256", "typ": "JWT", "x5c": [der]});
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let claims = serde_json::json!({
        "iss": ISSUER, "sub": USER, "aud": SERVICE,
        "exp": now + 3600, "nbf": now - 60, "iat": now - 60, "jti": now.to_string(),
        "access": [{"type": "repository", "name": repository, "actions": actions}],
    });
    let signing_input = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let mut child = Command::new("openssl")
        .args(["dgst", "-sha256", "-sign"])
        .arg(dir.join("key.pem"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("openssl runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(signing_input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "openssl dgst failed");
    format!("{signing_input}.{}", b64(&out.stdout))
}
