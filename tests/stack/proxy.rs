//! A TCP proxy a test can cut and restore, to simulate an outage of the shared mail stack
//! without ever stopping it: 127.0.0.1:<free port> → 127.0.0.1:<target>. While cut, every new
//! connection is accepted and closed at once (the client sees the server go away) and every
//! open connection is shut down.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

pub struct Proxy {
    pub port: u16,
    up: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
    /// Connections accepted while up.
    pub served: Arc<AtomicU64>,
    /// Connections refused while cut.
    pub refused: Arc<AtomicU64>,
}

impl Proxy {
    pub fn new(target: u16) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind proxy");
        let port = listener.local_addr().unwrap().port();
        let up = Arc::new(AtomicBool::new(true));
        let open: Arc<Mutex<Vec<TcpStream>>> = Arc::new(Mutex::new(Vec::new()));
        let served = Arc::new(AtomicU64::new(0));
        let refused = Arc::new(AtomicU64::new(0));
        let (u, o, s, r) = (up.clone(), open.clone(), served.clone(), refused.clone());
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if !u.load(Ordering::SeqCst) {
                    r.fetch_add(1, Ordering::SeqCst);
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                s.fetch_add(1, Ordering::SeqCst);
                {
                    let mut open = o.lock().unwrap();
                    open.retain(|c| c.peer_addr().is_ok());
                    open.push(client.try_clone().unwrap());
                    open.push(server.try_clone().unwrap());
                }
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        Proxy {
            port,
            up,
            open,
            served,
            refused,
        }
    }

    /// The outage begins: open connections are closed, new ones refused.
    pub fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for c in self.open.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }

    /// The outage ends.
    pub fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
