//! Running an agent's process in the interop suites: a hang detector, never a speed check.

use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::HANG_AFTER;

/// Waits for `child`, killing it (and failing) after [`HANG_AFTER`]. Output is drained on
/// threads so a chatty child never blocks on a full pipe.
pub fn wait_or_kill(mut child: std::process::Child, what: &str) -> Output {
    use std::io::Read;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let start = Instant::now();
    let (status, hung) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (status, false),
            Ok(None) if start.elapsed() > HANG_AFTER => {
                let _ = child.kill();
                break (child.wait().expect("wait after kill"), true);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(e) => panic!("waiting for {what}: {e}"),
        }
    };
    let output = Output {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    };
    assert!(
        !hung,
        "{what} hung and was killed\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}
