//! A small HTTP/1.1 server on loopback for faults a real web server will
//! not produce on demand: answers that come too late, bodies cut short,
//! bodies far too large. Each connection gets one answer, then is closed.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the server answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete answer.
    Full {
        /// The status code.
        status: u16,
        /// The body.
        body: Vec<u8>,
    },
    /// The same, after waiting.
    Late(Duration, Box<Reply>),
    /// A 200 that promises `declared` bytes, sends `body`, and hangs up.
    Truncated {
        /// The Content-Length sent.
        declared: usize,
        /// What is actually sent.
        body: Vec<u8>,
    },
}

type Handler = dyn Fn(&str) -> Reply + Send + Sync;

/// The running server; stops accepting when dropped.
pub struct Server {
    port: u16,
    stop: Arc<AtomicBool>,
    requests: Arc<Mutex<Vec<String>>>,
    open: Arc<AtomicUsize>,
}

impl Server {
    /// Serves every request by calling `handler` with its path.
    pub fn start(handler: impl Fn(&str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("local address").port();
        listener.set_nonblocking(true).expect("non-blocking accept");
        let stop = Arc::new(AtomicBool::new(false));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let open = Arc::new(AtomicUsize::new(0));
        let handler: Arc<Handler> = Arc::new(handler);
        {
            let (stop, requests, open) = (stop.clone(), requests.clone(), open.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    match listener.accept() {
                        Ok((stream, _)) => {
                            let (handler, requests, open) =
                                (handler.clone(), requests.clone(), open.clone());
                            open.fetch_add(1, Ordering::AcqRel);
                            std::thread::spawn(move || {
                                serve(stream, &*handler, &requests);
                                open.fetch_sub(1, Ordering::AcqRel);
                            });
                        }
                        Err(_) => std::thread::sleep(Duration::from_millis(2)),
                    }
                }
            });
        }
        Server {
            port,
            stop,
            requests,
            open,
        }
    }

    /// The base URL, with a trailing slash.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/", self.port)
    }

    /// The origin (`http://127.0.0.1:<port>`).
    pub fn origin(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The paths requested so far.
    pub fn requests(&self) -> Vec<String> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        // Let answers in flight finish writing (or fail) before the test's
        // temporary state goes away.
        for _ in 0..500 {
            if self.open.load(Ordering::Acquire) == 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn serve(stream: TcpStream, handler: &Handler, requests: &Mutex<Vec<String>>) {
    let _ = stream.set_nonblocking(false);
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    if let Ok(mut r) = requests.lock() {
        r.push(path.clone());
    }
    answer(stream, handler(&path));
}

fn answer(mut stream: TcpStream, reply: Reply) {
    match reply {
        Reply::Late(wait, reply) => {
            std::thread::sleep(wait);
            answer(stream, *reply);
        }
        Reply::Full { status, body } => {
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-length: {}\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
        Reply::Truncated { declared, body } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-length: {declared}\r\nconnection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
            let _ = stream.flush();
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }
}
