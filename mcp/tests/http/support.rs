//! A real server over real temporary skill folders, on loopback, and rmcp's
//! own client speaking to it on either protocol revision.

use rmcp::model::{ProtocolVersion, ResourceContents, ResourceUpdatedNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientCacheConfig, ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use skillhost_mcp::{HttpOptions, HttpServer, Live, Options};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// How long anything expected may take.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// A served tree of skills.
pub struct Served {
    pub root: PathBuf,
    pub live: Arc<Live>,
    pub server: Option<HttpServer>,
    pub url: String,
    _dir: tempfile::TempDir,
}

/// Files as [`Served::start`] takes them, borrowed from owned ones.
pub fn borrowed(files: &[(String, Vec<u8>)]) -> Vec<(&str, &[u8])> {
    files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect()
}

/// A skill folder's files.
pub fn skill(name: &str, description: &str) -> String {
    skillhost_tests::skill_md(name, description)
}

impl Served {
    /// Serves `files` (paths under the root) on loopback.
    pub async fn start(files: &[(&str, &[u8])]) -> Served {
        Served::start_with(files, Options::default(), |o| o).await
    }

    /// The same, with the server's and the listener's options adjusted.
    pub async fn start_with(
        files: &[(&str, &[u8])],
        options: Options,
        http: impl FnOnce(HttpOptions) -> HttpOptions,
    ) -> Served {
        Served::start_over(files, options, http, |runtime, root| {
            runtime.registry_for_roots(&[root]).unwrap()
        })
        .await
    }

    /// Serves the registry `make` builds over the root holding `files`.
    pub async fn start_over(
        files: &[(&str, &[u8])],
        options: Options,
        http: impl FnOnce(HttpOptions) -> HttpOptions,
        make: impl FnOnce(&skillhost::Runtime, &Path) -> skillhost::Registry + Send + 'static,
    ) -> Served {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap().join("skills");
        std::fs::create_dir_all(&root).unwrap();
        for (path, bytes) in files {
            skillhost_tests::write(&root, path, bytes);
        }
        let registry_root = root.clone();
        let live = tokio::task::spawn_blocking(move || {
            let runtime = skillhost_tests::runtime();
            let registry = make(&runtime, &registry_root);
            Live::start(Arc::new(registry), options).unwrap()
        })
        .await
        .unwrap();
        let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let server = HttpServer::start(live.clone(), http(HttpOptions::new(addr)))
            .await
            .unwrap();
        Served {
            url: server.url(),
            root,
            live,
            server: Some(server),
            _dir: dir,
        }
    }

    /// Writes a file under the root.
    pub fn write(&self, path: &str, bytes: &[u8]) {
        skillhost_tests::write(&self.root, path, bytes);
    }

    /// Writes a whole skill folder at once (made beside the root, then
    /// moved in), so the watcher sees it complete.
    pub fn add_skill(&self, name: &str, description: &str) {
        let staging = self.root.parent().unwrap().join(format!(".staging-{name}"));
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::write(staging.join("SKILL.md"), skill(name, description)).unwrap();
        std::fs::rename(&staging, self.root.join(name)).unwrap();
    }

    /// Stops the server.
    pub async fn stop(mut self) {
        if let Some(server) = self.server.take() {
            server.shutdown().await;
        }
        self.live.close();
    }
}

/// Everything a client was told, in order.
#[derive(Clone, Default)]
pub struct Recorder {
    pub events: Arc<Mutex<Vec<String>>>,
    pub arrived: Arc<Notify>,
}

impl Recorder {
    fn push(&self, event: String) {
        self.events.lock().unwrap().push(event);
        self.arrived.notify_waiters();
    }

    /// What arrived so far.
    pub fn seen(&self) -> Vec<String> {
        self.events.lock().unwrap().clone()
    }

    /// Waits until `event` arrived (panics after PATIENCE).
    pub async fn until(&self, event: &str) {
        assert!(
            self.arrives(event).await,
            "{event} never arrived; got {:?}",
            self.seen()
        );
    }

    /// Whether `event` arrives within PATIENCE; a test that can say more
    /// about a miss than the events seen asks this and explains.
    pub async fn arrives(&self, event: &str) -> bool {
        let started = Instant::now();
        loop {
            let arrived = self.arrived.notified();
            if self.seen().iter().any(|e| e == event) {
                return true;
            }
            let left = PATIENCE.saturating_sub(started.elapsed());
            if left.is_zero() {
                return false;
            }
            let _ = tokio::time::timeout(left.min(Duration::from_millis(100)), arrived).await;
        }
    }
}

impl ClientHandler for Recorder {
    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.push("resources/list_changed".into());
    }

    async fn on_prompt_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.push("prompts/list_changed".into());
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.push("tools/list_changed".into());
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.push(format!("resources/updated {}", params.uri));
    }
}

pub type Client = RunningService<RoleClient, Recorder>;

/// A plain HTTP client with no proxy. Every test builds its clients here:
/// in a workspace build reqwest carries rustls without a crypto provider
/// (see Cargo.toml), so ring is installed first.
pub fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

fn transport(url: &str, token: Option<&str>) -> StreamableHttpClientTransport<reqwest::Client> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(token) = token {
        config = config.auth_header(token.to_string());
    }
    StreamableHttpClientTransport::with_client(http(), config)
}

async fn uncached(client: Client) -> Client {
    client
        .peer()
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    client
}

/// A 2025-11-25 client: `initialize`, a session, notifications on its GET stream.
pub async fn legacy(url: &str) -> Client {
    legacy_with(url, None, Recorder::default()).await
}

/// The same, with a bearer token and a recorder of one's own.
pub async fn legacy_with(url: &str, token: Option<&str>, recorder: Recorder) -> Client {
    let client = recorder
        .serve_with_lifecycle(transport(url, token), ClientLifecycleMode::Initialize)
        .await
        .expect("initialize succeeds");
    uncached(client).await
}

/// A 2026-07-28 client: `server/discover`, then self-contained requests.
pub async fn modern(url: &str) -> Client {
    let client = Recorder::default()
        .serve_with_lifecycle(
            transport(url, None),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover succeeds");
    uncached(client).await
}

/// The bytes of one read, whether sent as text or as base64.
pub fn bytes_of(contents: &ResourceContents) -> Vec<u8> {
    use base64::Engine as _;
    match contents {
        ResourceContents::TextResourceContents { text, .. } => text.as_bytes().to_vec(),
        ResourceContents::BlobResourceContents { blob, .. } => {
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .unwrap()
        }
        _ => panic!("unknown contents"),
    }
}

/// `sha256:<hex>` of `bytes`, computed here (not by the server's code).
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    let hash = sha2::Sha256::digest(bytes);
    format!(
        "sha256:{}",
        hash.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// `resources/subscribe`: deprecated by 2026-07-28 (which uses
/// `subscriptions/listen`), but what 2025-11-25 clients send.
#[allow(deprecated)]
pub async fn subscribe(client: &Client, uri: &str) {
    client
        .subscribe(rmcp::model::SubscribeRequestParams::new(uri))
        .await
        .unwrap();
}
