//! The address the mock listens on: loopback only unless `--allow-remote`, and a clear error
//! for an address that cannot be used.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};

/// Binds `listen` (`HOST:PORT`; port 0 picks a free one). A host that is not loopback is
/// refused unless `allow_remote`.
pub(crate) fn bind(listen: &str, allow_remote: bool) -> Result<TcpListener, String> {
    let addresses: Vec<SocketAddr> = listen
        .to_socket_addrs()
        .map_err(|e| {
            format!(
                "error: --listen {listen}: not an address to listen on ({e}); give HOST:PORT, \
                 for example 127.0.0.1:4010"
            )
        })?
        .collect();
    let Some(first) = addresses.first() else {
        return Err(format!("error: --listen {listen}: the host has no address"));
    };
    if !allow_remote && let Some(remote) = addresses.iter().find(|a| !a.ip().is_loopback()) {
        return Err(format!(
            "error: --listen {listen}: {} is not a loopback address; the mock listens on \
             loopback only (127.0.0.1 or [::1]) unless --allow-remote is given",
            remote.ip()
        ));
    }
    TcpListener::bind(first).map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::AddrInUse {
            format!(
                "; another process listens there: pick another port (--listen {}:PORT, or port \
                 0 for a free one)",
                host_part(first)
            )
        } else {
            String::new()
        };
        format!("error: --listen {listen}: cannot listen on {first}: {e}{hint}")
    })
}

fn host_part(address: &SocketAddr) -> String {
    match address {
        SocketAddr::V4(v4) => v4.ip().to_string(),
        SocketAddr::V6(v6) => format!("[{}]", v6.ip()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_addresses_need_the_flag() {
        let refused = bind("0.0.0.0:0", false).err().unwrap_or_default();
        assert!(refused.contains("not a loopback address"), "{refused}");
        assert!(refused.contains("--allow-remote"), "{refused}");
        assert!(bind("127.0.0.1:0", false).is_ok());
        let bad = bind("nonsense", false).err().unwrap_or_default();
        assert!(bad.contains("HOST:PORT"), "{bad}");
    }
}
