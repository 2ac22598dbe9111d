//! TLS for the simulated pair: rustls on ring, a certificate stored in the repository,
//! and no wall clock anywhere a decision is made.
//!
//! The certificate (`certs/server.cert.der`, an Ed25519 self-signed certificate for
//! `spikelab.test`, made once with `openssl req -x509`) is pinned: the client accepts
//! exactly these bytes and checks the handshake signature against them, so certificate
//! validity (rustls' `WebPkiServerVerifier` reads `UnixTime::now()`) never depends on
//! the date. Ed25519 because its signatures are always 64 bytes (ECDSA's DER encoding
//! varies by a byte or two with the random nonce, which would change packet sizes
//! between runs). rustls' own clock (ticket ages) is a fixed instant.
//!
//! What stays random: rustls draws the X25519 key shares from ring's system RNG
//! (`SystemRandom`) and the ClientHello random and session ticket ids from the
//! provider's `secure_random`, so every key after the Initial keys (which RFC 9001 5.2
//! derives from the seeded connection id) and every ciphertext byte from the
//! ClientHello on differs between runs. Their lengths do not: X25519 shares are 32
//! bytes, randoms and ticket ids fixed-size, AEAD adds a fixed 16-byte tag.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{ring, verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::time_provider::TimeProvider;
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::sync::Arc;

/// The server's certificate and key (Ed25519, PKCS#8 DER).
const CERT: &[u8] = include_bytes!("../certs/server.cert.der");
const KEY: &[u8] = include_bytes!("../certs/server.key.der");
/// The name the certificate is for, which the client asks for.
pub const SERVER_NAME: &str = "spikelab.test";

/// rustls' clock: a fixed instant (2026-01-01), so no decision reads the date.
#[derive(Debug)]
struct FixedClock;

impl TimeProvider for FixedClock {
    fn current_time(&self) -> Option<UnixTime> {
        Some(UnixTime::since_unix_epoch(std::time::Duration::from_secs(
            1_767_225_600,
        )))
    }
}

/// Accepts exactly the stored certificate and checks the handshake's signature with it.
#[derive(Debug)]
struct Pinned {
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == CERT {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.provider.signature_verification_algorithms;
        verify_tls12_signature(message, cert, dss, algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        let algs = &self.provider.signature_verification_algorithms;
        verify_tls13_signature(message, cert, dss, algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        let algs = &self.provider.signature_verification_algorithms;
        algs.supported_schemes()
    }
}

/// rustls' ring provider (X25519 first among key exchange groups, AES-128-GCM first
/// among cipher suites). rustls 0.23.48 deprecates it for lacking post-quantum key
/// exchange; that is immaterial here, and ring is the provider quinn-proto's
/// `rustls-ring` feature builds (aws-lc-rs, the alternative, needs cmake and a C build).
#[allow(deprecated)]
fn provider() -> Arc<CryptoProvider> {
    Arc::new(ring::default_provider())
}

/// The client's TLS 1.3 configuration: the pinned certificate, the fixed clock.
pub fn client() -> rustls::ClientConfig {
    let provider = provider();
    let verifier = Arc::new(Pinned {
        provider: provider.clone(),
    });
    rustls::ClientConfig::builder_with_details(provider, Arc::new(FixedClock))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring offers TLS 1.3")
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth()
}

/// The server's TLS 1.3 configuration: the stored certificate and key, the fixed clock.
pub fn server() -> rustls::ServerConfig {
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(KEY.to_vec()));
    let mut cfg = rustls::ServerConfig::builder_with_details(provider(), Arc::new(FixedClock))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("ring offers TLS 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(CERT.to_vec())], key)
        .expect("the stored key matches the stored certificate");
    // quinn accepts a server configuration only with 0-RTT off or unlimited.
    cfg.max_early_data_size = 0;
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stored_certificate_and_key_make_a_server_configuration() {
        let cfg = server();
        assert_eq!(cfg.max_early_data_size, 0);
    }

    #[test]
    fn the_client_rejects_any_certificate_but_the_stored_one() {
        let v = Pinned {
            provider: provider(),
        };
        let name = ServerName::try_from(SERVER_NAME).expect("a DNS name");
        let now = UnixTime::since_unix_epoch(std::time::Duration::ZERO);
        let other = CertificateDer::from(vec![0u8; CERT.len()]);
        assert!(v.verify_server_cert(&other, &[], &name, &[], now).is_err());
        let ours = CertificateDer::from(CERT.to_vec());
        assert!(v.verify_server_cert(&ours, &[], &name, &[], now).is_ok());
    }
}
