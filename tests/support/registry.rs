//! A real OCI registry (Debian's `docker-registry`, the CNCF distribution
//! registry) on a free loopback port, in a temporary folder, stopped when
//! dropped; anonymous or behind htpasswd basic auth.

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
    _dir: tempfile::TempDir,
}

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
        Self::start_with(false)
    }

    /// A registry that asks for [`USER`] and [`PASSWORD`].
    pub fn with_basic_auth() -> LocalRegistry {
        Self::start_with(true)
    }

    fn start_with(auth: bool) -> LocalRegistry {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let addr = format!("127.0.0.1:{port}");
        let auth_section = if auth {
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
        } else {
            String::new()
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
        let registry = LocalRegistry {
            child,
            addr,
            _dir: dir,
        };
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
