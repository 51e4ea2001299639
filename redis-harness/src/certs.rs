//! [`Certs`]: a private CA and the certificates it signs, as PEM files.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

use crate::dir::Dir;
use crate::Error;

/// A private CA, a server certificate it signed for `localhost` and
/// `127.0.0.1`, and a client certificate it signed, written as PEM files
/// in a directory of their own (removed when dropped).
#[derive(Debug)]
pub struct Certs {
    dir: Dir,
}

impl Certs {
    /// Makes them (a few milliseconds: ECDSA P-256 keys).
    pub fn new() -> Result<Self, Error> {
        let dir = Dir::new()?;
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "redis-harness test CA");
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate()?)?;
        write(dir.path(), "ca.crt", &ca.pem())?;
        for (name, sans, usage) in [
            (
                "server",
                vec!["localhost".to_string(), "127.0.0.1".to_string()],
                ExtendedKeyUsagePurpose::ServerAuth,
            ),
            (
                "client",
                vec!["shared-limits-client".to_string()],
                ExtendedKeyUsagePurpose::ClientAuth,
            ),
        ] {
            let key = KeyPair::generate()?;
            let mut params = CertificateParams::new(sans)?;
            params.distinguished_name.push(DnType::CommonName, name);
            params.extended_key_usages = vec![usage];
            let cert = params.signed_by(&key, &ca)?;
            write(dir.path(), &format!("{name}.crt"), &cert.pem())?;
            write(dir.path(), &format!("{name}.key"), &key.serialize_pem())?;
        }
        Ok(Self { dir })
    }

    /// The CA's certificate.
    pub fn ca(&self) -> PathBuf {
        self.dir.path().join("ca.crt")
    }

    /// The server's certificate and key.
    pub fn server(&self) -> (PathBuf, PathBuf) {
        (
            self.dir.path().join("server.crt"),
            self.dir.path().join("server.key"),
        )
    }

    /// The client's certificate and key.
    pub fn client(&self) -> (PathBuf, PathBuf) {
        (
            self.dir.path().join("client.crt"),
            self.dir.path().join("client.key"),
        )
    }
}

fn write(dir: &Path, name: &str, pem: &str) -> Result<(), Error> {
    std::fs::write(dir.join(name), pem)?;
    Ok(())
}
