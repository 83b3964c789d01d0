//! A rank's [`Transport`] shared by the threads that use it: the coordinator,
//! the workers' output (ranks other than 0 send it to rank 0), and the end of the
//! run. MPI is initialised for one thread at a time (`MPI_THREAD_SERIALIZED`),
//! which the lock gives.

use super::message::Message;
use super::transport::Transport;
use std::io::{self, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// One rank's transport, shared.
pub struct Link {
    transport: Mutex<Box<dyn Transport>>,
    rank: usize,
    ranks: usize,
}

impl Link {
    pub fn new(transport: Box<dyn Transport>) -> Arc<Link> {
        let (rank, ranks) = (transport.rank(), transport.ranks());
        Arc::new(Link {
            transport: Mutex::new(transport),
            rank,
            ranks,
        })
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn ranks(&self) -> usize {
        self.ranks
    }

    fn lock(&self) -> MutexGuard<'_, Box<dyn Transport>> {
        // A thread that panicked while sending leaves the transport usable.
        self.transport.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn send(&self, to: usize, message: &Message) {
        self.lock().send(to, message.encode());
    }

    /// A message that has arrived, if any. One that does not read is dropped: a
    /// rank of another build, or a bug; it cannot be answered.
    pub fn try_receive(&self) -> Option<(usize, Message)> {
        loop {
            let (from, bytes) = self.lock().try_receive()?;
            if let Some(message) = Message::decode(&bytes) {
                return Some((from, message));
            }
        }
    }

    /// Waits for the next message, polling with `pause` between looks.
    pub fn receive(&self, pause: &mut Pause) -> (usize, Message) {
        loop {
            if let Some(received) = self.try_receive() {
                pause.reset();
                return received;
            }
            pause.wait();
        }
    }

    pub fn flush(&self) {
        self.lock().flush();
    }
}

/// How long a rank sleeps between looks at its messages: short right after one
/// arrived, doubling to [`Pause::LONGEST`] while none do, so that an idle rank
/// costs little CPU and a busy exchange is answered fast.
pub struct Pause {
    now: Duration,
}

impl Pause {
    const SHORTEST: Duration = Duration::from_micros(20);
    const LONGEST: Duration = Duration::from_millis(1);

    pub fn new() -> Pause {
        Pause {
            now: Pause::SHORTEST,
        }
    }

    pub fn reset(&mut self) {
        self.now = Pause::SHORTEST;
    }

    pub fn wait(&mut self) {
        std::thread::sleep(self.now);
        self.now = (self.now * 2).min(Pause::LONGEST);
    }
}

impl Default for Pause {
    fn default() -> Pause {
        Pause::new()
    }
}

/// The output of a rank other than 0: each block the workers hand over (whole
/// records, see `output::sink`) is one message to rank 0, which writes it.
pub struct ToRankZero(pub Arc<Link>);

impl Write for ToRankZero {
    fn write(&mut self, block: &[u8]) -> io::Result<usize> {
        self.0.send(0, &Message::Output(block.to_vec()));
        Ok(block.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
