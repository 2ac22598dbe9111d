//! Everything quinn would draw from the operating system, drawn from the run's seed.
//!
//! quinn-proto seeds its endpoint generator from `EndpointConfig::rng_seed` (and each
//! connection's from the endpoint's); its defaults take three more values from the
//! thread RNG (`rand::rng()`): the stateless-reset key (`EndpointConfig::default`), the
//! token key (`ServerConfig::with_crypto`), every connection id
//! (`HashedConnectionIdGenerator`) and the client's first destination connection id
//! (`ClientConfig::initial_dst_cid_provider`, which RFC 9001 5.2 derives the Initial
//! keys from). Here all five come from named
//! [`RngStreams`](spikelab_core::rng::RngStreams) of the run, and the server's token
//! clock ([`TimeSource`]) is a fixed instant.

use quinn_proto::{ConnectionId, ConnectionIdGenerator, TimeSource};
use rand::{Rng, RngCore};
use spikelab_core::rng::{RngStreams, SimRng};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// Length of the client's first destination connection id quinn makes (its private
/// `MAX_CID_SIZE`, RFC 9000 17.2).
const INITIAL_DCID_LEN: usize = 20;
/// Length of the connection ids quinn's default generator makes.
const CID_LEN: usize = 8;

/// The seeds of one connection's two endpoints, from the run's streams and the flow's index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairSeeds {
    streams: RngStreams,
    index: u64,
}

impl PairSeeds {
    pub fn new(streams: RngStreams, index: u64) -> PairSeeds {
        PairSeeds { streams, index }
    }

    fn stream(&self, name: &str) -> SimRng {
        self.streams.stream(name, self.index)
    }

    /// `EndpointConfig::rng_seed` of the client or the server endpoint.
    pub fn endpoint(&self, server: bool) -> [u8; 32] {
        let name = if server {
            "quinn-server"
        } else {
            "quinn-client"
        };
        self.stream(name).random()
    }

    /// The generator factory of the client's or the server's connection ids.
    pub fn cids(&self, server: bool) -> impl Fn() -> Box<dyn ConnectionIdGenerator> + Send + Sync {
        let name = if server {
            "quinn-server-cid"
        } else {
            "quinn-client-cid"
        };
        let seed: [u8; 32] = self.stream(name).random();
        move || Box::new(SeededCids(rand::SeedableRng::from_seed(seed)))
    }

    /// The client's first destination connection id, of quinn's length (20 bytes).
    pub fn initial_dst_cid(&self) -> impl Fn() -> ConnectionId + Send + Sync {
        let rng = Mutex::new(self.stream("quinn-initial-dcid"));
        move || {
            let mut bytes = [0u8; INITIAL_DCID_LEN];
            rng.lock().expect("never poisoned").fill_bytes(&mut bytes);
            ConnectionId::new(&bytes)
        }
    }

    /// The stateless-reset key of an endpoint.
    pub fn reset_key(&self, server: bool) -> ring::hmac::Key {
        let name = if server {
            "quinn-server-reset"
        } else {
            "quinn-client-reset"
        };
        let mut key = [0u8; 64];
        self.stream(name).fill_bytes(&mut key);
        ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key)
    }

    /// The server's address-validation token key.
    pub fn token_key(&self) -> ring::hkdf::Prk {
        let mut master = [0u8; 64];
        self.stream("quinn-token").fill_bytes(&mut master);
        ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &[]).extract(&master)
    }
}

/// Connection ids of quinn's default length, drawn from a seeded stream.
struct SeededCids(SimRng);

impl ConnectionIdGenerator for SeededCids {
    fn generate_cid(&mut self) -> ConnectionId {
        let mut bytes = [0u8; CID_LEN];
        self.0.fill_bytes(&mut bytes);
        ConnectionId::new(&bytes)
    }

    fn cid_len(&self) -> usize {
        CID_LEN
    }

    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// The server's clock for the tokens it issues: a fixed instant (2026-01-01).
pub struct FixedSystemTime;

impl TimeSource for FixedSystemTime {
    fn now(&self) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_connection_ids_and_another_seed_others() {
        let ids = |seed| {
            let make = PairSeeds::new(RngStreams::new(seed), 0).cids(false);
            let mut g = make();
            (g.generate_cid(), g.generate_cid())
        };
        assert_eq!(ids(1), ids(1));
        assert_ne!(ids(1), ids(2));
        assert_ne!(ids(1).0, ids(1).1);
    }

    #[test]
    fn client_and_server_endpoints_get_different_seeds() {
        let s = PairSeeds::new(RngStreams::new(7), 3);
        assert_ne!(s.endpoint(false), s.endpoint(true));
    }
}
