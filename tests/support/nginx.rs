//! A real nginx on loopback, serving a folder, for the remote provider's
//! tests. It runs in the foreground as one process with its own prefix,
//! configuration and logs in a temporary folder, and is killed on drop.
//! `.ci/run` installs nginx when the machine lacks it.

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// One request as nginx logged it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Logged {
    /// The HTTP status sent.
    pub status: u16,
    /// Bytes sent to the client, headers included.
    pub bytes: u64,
    /// The request path.
    pub path: String,
}

/// A running nginx.
pub struct Nginx {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
    served: PathBuf,
}

/// Where nginx is, or a message saying how to get it.
fn binary() -> PathBuf {
    ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .or_else(|| {
            let out = Command::new("sh")
                .args(["-c", "command -v nginx"])
                .output()
                .ok()?;
            let path = String::from_utf8(out.stdout).ok()?;
            let path = PathBuf::from(path.trim());
            path.is_file().then_some(path)
        })
        .unwrap_or_else(|| {
            panic!(
                "nginx is needed for the remote provider tests; .ci/run installs it \
                 (apt-get install -y nginx-light)"
            )
        })
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Nginx {
    /// Serves `root` at `http://127.0.0.1:<port>/`.
    pub fn serve(root: &Path) -> Nginx {
        let dir = tempfile::tempdir().expect("a folder for nginx");
        let mut nginx = Nginx {
            child: None,
            port: free_port(),
            dir,
            served: root.to_path_buf(),
        };
        nginx.start();
        nginx
    }

    /// The base URL, with a trailing slash.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The origin (`http://127.0.0.1:<port>`).
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Starts it again on the same port (after [`Nginx::stop`]).
    pub fn start(&mut self) {
        assert!(self.child.is_none(), "nginx is already running");
        let d = self.dir.path();
        for sub in ["logs", "tmp"] {
            std::fs::create_dir_all(d.join(sub)).expect("nginx folders");
        }
        let conf = format!(
            "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
             error_log {d}/logs/error.log warn;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n\
               types {{ application/json json; text/markdown md; }}\n\
               default_type application/octet-stream;\n\
               log_format counted '$status $bytes_sent $uri';\n\
               access_log {d}/logs/access.log counted;\n\
               client_body_temp_path {d}/tmp/body; proxy_temp_path {d}/tmp/proxy;\n\
               fastcgi_temp_path {d}/tmp/fastcgi; uwsgi_temp_path {d}/tmp/uwsgi; scgi_temp_path {d}/tmp/scgi;\n\
               sendfile on; etag on; keepalive_timeout 5;\n\
               server {{ listen 127.0.0.1:{port}; root {root}; }}\n\
             }}\n",
            d = d.display(),
            port = self.port,
            root = self.served.display(),
        );
        let conf_path = d.join("nginx.conf");
        std::fs::write(&conf_path, conf).expect("write nginx.conf");
        let child = Command::new(binary())
            .arg("-p")
            .arg(d)
            .arg("-e")
            .arg(d.join("logs/error.log"))
            .arg("-c")
            .arg(&conf_path)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        self.child = Some(child);
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(status) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                let mut message = String::new();
                if let Some(err) = self.child.as_mut().and_then(|c| c.stderr.take()) {
                    for line in BufReader::new(err).lines().map_while(Result::ok) {
                        message.push_str(&line);
                        message.push('\n');
                    }
                }
                panic!("nginx exited ({status}): {message}");
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "nginx did not listen on port {} within 10 s",
                self.port
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Stops it; the port refuses connections until [`Nginx::start`].
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Every request served so far, oldest first.
    pub fn log(&self) -> Vec<Logged> {
        let text =
            std::fs::read_to_string(self.dir.path().join("logs/access.log")).unwrap_or_default();
        text.lines()
            .filter_map(|line| {
                let mut parts = line.splitn(3, ' ');
                Some(Logged {
                    status: parts.next()?.parse().ok()?,
                    bytes: parts.next()?.parse().ok()?,
                    path: parts.next()?.to_string(),
                })
            })
            .collect()
    }

    /// Requests for `path` so far.
    pub fn requests_for(&self, path: &str) -> Vec<Logged> {
        self.log().into_iter().filter(|l| l.path == path).collect()
    }

    /// Every request answered before this call, with none still unlogged.
    /// nginx writes a request's line after sending its answer, so a client
    /// can be ahead of the log; this sends one request of its own on a fresh
    /// connection and waits for its line, which nginx's single worker writes
    /// after those of requests it finished earlier. Sentinel lines are left
    /// out of what it returns. Gives up after 10 s and returns what is there.
    pub fn settled(&self) -> Vec<Logged> {
        use std::io::{Read, Write};
        const SENTINEL: &str = "/__settled__";
        let before = self.requests_for(SENTINEL).len();
        if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            let request =
                format!("GET {SENTINEL} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            if stream.write_all(request.as_bytes()).is_ok() {
                let mut answer = Vec::new();
                let _ = stream.read_to_end(&mut answer);
            }
        }
        self.logged(SENTINEL, before + 1);
        self.log()
            .into_iter()
            .filter(|l| l.path != SENTINEL)
            .collect()
    }

    /// Requests for `path`, once at least `count` are logged (nginx writes
    /// a request's line after sending its answer, so the client can be
    /// ahead of the log). Gives up after 10 s and returns what is there.
    pub fn logged(&self, path: &str, count: usize) -> Vec<Logged> {
        let started = Instant::now();
        loop {
            let seen = self.requests_for(path);
            if seen.len() >= count || started.elapsed() > Duration::from_secs(10) {
                return seen;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        self.stop();
    }
}
