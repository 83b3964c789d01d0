//! The ranks' transport over MPI (the `mpi` feature): the [`Transport`] of
//! `pfind-mpi`. Sends are non-blocking (`MPI_Isend`), each buffer kept until its
//! request completes, so that two ranks sending to each other at once cannot
//! deadlock in a rendezvous; receives probe for any source and tag
//! (`MPI_Improbe`, then a matched receive), which keeps the order MPI guarantees
//! between two ranks.

use super::transport::Transport;
use mpi::request::{Request, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::{Destination, MatchedReceiveVec, Source};

/// A send under way: its request, and its buffer to free once it completes.
type Sending = (Request<'static, [u8], StaticScope>, *mut [u8]);

/// One rank's MPI transport on `MPI_COMM_WORLD`.
pub struct Mpi {
    world: SimpleCommunicator,
    rank: usize,
    ranks: usize,
    /// Sends under way, with their buffers (leaked to give MPI a `'static` one,
    /// taken back once the request completes).
    sending: Vec<Sending>,
}

// SAFETY: MPI is initialised with `MPI_THREAD_SERIALIZED` or more (checked in
// `pfind-mpi`'s main before a transport is made), which allows MPI calls from any
// thread as long as no two run at once; every call goes through a `Link`, whose
// lock serialises them. The raw buffer pointers are owned by this value alone.
unsafe impl Send for Mpi {}

impl Mpi {
    /// The transport on `world`.
    pub fn new(world: SimpleCommunicator) -> Mpi {
        let rank = world.rank() as usize;
        let ranks = world.size() as usize;
        Mpi {
            world,
            rank,
            ranks,
            sending: Vec::new(),
        }
    }

    /// Frees the buffers of the sends that have completed.
    fn reap(&mut self) {
        for (request, buffer) in std::mem::take(&mut self.sending) {
            match request.test() {
                Ok(_) => {
                    // SAFETY: `buffer` came from `Box::leak` in `send`, and the
                    // request that read it has completed: nothing refers to it.
                    drop(unsafe { Box::from_raw(buffer) });
                }
                Err(request) => self.sending.push((request, buffer)),
            }
        }
    }
}

impl Transport for Mpi {
    fn rank(&self) -> usize {
        self.rank
    }

    fn ranks(&self) -> usize {
        self.ranks
    }

    fn send(&mut self, to: usize, message: Vec<u8>) {
        let buffer: &'static mut [u8] = Box::leak(message.into_boxed_slice());
        let pointer: *mut [u8] = buffer;
        // SAFETY: the shared borrow handed to MPI lives until the request completes
        // (`reap`, `flush`), and nothing writes the buffer meanwhile.
        let request = self
            .world
            .process_at_rank(to as i32)
            .immediate_send(StaticScope, unsafe { &*pointer });
        self.sending.push((request, pointer));
        if self.sending.len() > 64 {
            self.reap();
        }
    }

    fn try_receive(&mut self) -> Option<(usize, Vec<u8>)> {
        self.reap();
        let probed = self.world.any_process().immediate_matched_probe()?;
        let (bytes, status) = probed.matched_receive_vec::<u8>();
        Some((status.source_rank() as usize, bytes))
    }

    fn flush(&mut self) {
        for (request, buffer) in self.sending.drain(..) {
            request.wait();
            // SAFETY: as in `reap`: the request that read the buffer has completed.
            drop(unsafe { Box::from_raw(buffer) });
        }
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        // A request dropped unfinished panics in the `mpi` crate.
        self.flush();
    }
}
