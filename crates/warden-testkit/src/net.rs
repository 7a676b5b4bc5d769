//! Loopback ports: a free one, one where nothing listens, waiting for one.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// A port free on `ip` right now (another process may take it later).
pub fn free_port(ip: &str) -> u16 {
    TcpListener::bind((ip, 0))
        .expect("bind a free port")
        .local_addr()
        .expect("its address")
        .port()
}

/// `http://127.0.0.1:PORT` where nothing listens: the port was bound, then
/// let go.
pub fn unused_url() -> String {
    format!("http://127.0.0.1:{}", free_port("127.0.0.1"))
}

/// Waits until something accepts TCP connections on `addr`; panics with
/// `what` after `limit`.
pub fn wait_for_port(addr: SocketAddr, limit: Duration, what: &str) {
    let deadline = Instant::now() + limit;
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(
            Instant::now() < deadline,
            "{what} did not listen on {addr} within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
