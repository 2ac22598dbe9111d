//! The applications at the two ends: the client writes each message the caller hands
//! it on a unidirectional stream of its own and finishes it (a bulk transfer is one
//! message, a ping-pong exchange one per round), the server reads every stream.
//!
//! Messages are numbered in order and so are the client's unidirectional streams
//! (RFC 9000 2.1: a stream's index is its place among its initiator's streams of its
//! direction), so stream `k` carries message `k`, whose first byte is the application's
//! byte [`Writer::start`] of `k`: a STREAM frame's offset maps to an offset in
//! everything the application wrote.

use quinn_proto::{Connection, Dir, StreamId};

/// The client's application.
#[derive(Default)]
pub struct Writer {
    /// Each message's first byte in the application's byte sequence, and its end.
    starts: Vec<u64>,
    end: u64,
    /// Messages with a stream; the stream being written, and the bytes of it quinn
    /// has taken.
    opened: usize,
    current: Option<StreamId>,
    taken: u64,
    /// Messages whose stream quinn reported acknowledged in full.
    acked: usize,
}

impl Writer {
    /// The application writes a message of `bytes`.
    pub fn message(&mut self, bytes: u64) {
        self.starts.push(self.end);
        self.end += bytes;
    }

    /// Every byte written.
    pub fn written(&self) -> u64 {
        self.end
    }

    /// Every message written is acknowledged (true before the first).
    pub fn all_acked(&self) -> bool {
        self.acked == self.starts.len()
    }

    /// Where stream `k`'s byte `off` lies in the application's bytes.
    pub fn start(&self, k: u64) -> Option<u64> {
        self.starts.get(k as usize).copied()
    }

    /// Bytes of the messages acknowledged in full (messages are acknowledged in order:
    /// each is written when the one before is).
    pub fn acked_bytes(&self) -> u64 {
        self.starts.get(self.acked).copied().unwrap_or(self.end)
    }

    /// quinn acknowledged the whole of a stream.
    pub fn on_finished(&mut self) {
        self.acked += 1;
    }

    fn len(&self, k: usize) -> u64 {
        let next = self.starts.get(k + 1).copied().unwrap_or(self.end);
        next - self.starts[k]
    }

    /// Hands quinn what it will take of the messages not yet on a finished stream:
    /// each message opens a stream, is written into it, and finishes it.
    pub fn write(&mut self, c: &mut Connection) {
        const ZEROS: [u8; 16384] = [0; 16384];
        loop {
            let current = match self.current {
                Some(id) => id,
                None if self.opened < self.starts.len() => {
                    let Some(id) = c.streams().open(Dir::Uni) else {
                        return;
                    };
                    self.opened += 1;
                    self.taken = 0;
                    *self.current.insert(id)
                }
                None => return,
            };
            let len = self.len(self.opened - 1);
            let mut stream = c.send_stream(current);
            while self.taken < len {
                let n = (len - self.taken).min(ZEROS.len() as u64) as usize;
                match stream.write(&ZEROS[..n]) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => self.taken += n as u64,
                }
            }
            if stream.finish().is_err() {
                return;
            }
            self.current = None;
        }
    }
}

/// The server's application.
#[derive(Default)]
pub struct Reader {
    /// The streams accepted and not yet read to their end.
    open: Vec<StreamId>,
    /// Bytes read, and streams read to their end.
    pub read: u64,
    pub ended: u64,
}

impl Reader {
    /// Accepts the streams the client opened and reads what they hold.
    pub fn read(&mut self, c: &mut Connection) {
        while let Some(id) = c.streams().accept(Dir::Uni) {
            self.open.push(id);
        }
        let mut ended = Vec::new();
        for &id in &self.open {
            let mut stream = c.recv_stream(id);
            let Ok(mut chunks) = stream.read(true) else {
                continue;
            };
            loop {
                match chunks.next(usize::MAX) {
                    Ok(Some(chunk)) => self.read += chunk.bytes.len() as u64,
                    Ok(None) => {
                        ended.push(id);
                        break;
                    }
                    Err(_) => break,
                }
            }
            let _ = chunks.finalize();
        }
        self.ended += ended.len() as u64;
        self.open.retain(|id| !ended.contains(id));
    }
}
