//! Loopback ports: a free one, and one where nothing listens.

use std::net::TcpListener;

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
