"""The machine's own HTTPS certificate for the phones' page, created on first use.

Browsers give a page the microphone only in a secure context: HTTPS, or ``localhost``. Nobody
can get a certificate from a public authority for a party laptop's address on a home network,
so voicehost makes a self-signed one (ECDSA P-256, valid for ten years, for every address the
machine has now plus ``localhost``) and keeps it; each phone asks its player once to accept it
(docs/table.md says what they see). A new address (another network) gives a new certificate.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from voicehost.files import atomic_write_text

CERT_FILE = "phones-cert.pem"
KEY_FILE = "phones-key.pem"
VALID_DAYS = 3650


@dataclass(frozen=True)
class Certificate:
    """Where the certificate and key are, and what a player can compare."""

    cert: Path
    key: Path
    fingerprint: str
    """SHA-256 of the certificate, as browsers show it (AA:BB:...)."""
    created: bool
    """True when it was made just now."""


def default_folder() -> Path:
    """``$VOICEHOST_PHONES_CERT_DIR``, else ``$XDG_DATA_HOME/voicehost`` (~/.local/share/voicehost)."""
    chosen = os.environ.get("VOICEHOST_PHONES_CERT_DIR")
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "voicehost"


def ensure_certificate(addresses: Sequence[str], folder: Path | None = None) -> Certificate:
    """The certificate in ``folder`` if it covers ``addresses``; else a new one written there."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    folder = Path(folder) if folder is not None else default_folder()
    cert_path, key_path = folder / CERT_FILE, folder / KEY_FILE
    wanted = {ipaddress.ip_address(a) for a in addresses} | {ipaddress.ip_address("127.0.0.1")}
    if cert_path.exists() and key_path.exists():
        try:
            existing = x509.load_pem_x509_certificate(cert_path.read_bytes())
            names = existing.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            covered = set(names.get_values_for_type(x509.IPAddress))
            expires = existing.not_valid_after_utc
            if wanted <= covered and expires > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(
                days=1
            ):
                return Certificate(cert_path, key_path, _fingerprint(existing.fingerprint(hashes.SHA256())), False)
        except (ValueError, x509.ExtensionNotFound):
            pass
    cert_pem, key_pem, digest = _make(sorted(wanted, key=str))
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_text(key_path, key_pem, "certificate key")
    os.chmod(key_path, 0o600)
    atomic_write_text(cert_path, cert_pem, "certificate")
    return Certificate(cert_path, key_path, digest, True)


def _make(addresses: Sequence[ipaddress.IPv4Address | ipaddress.IPv6Address]) -> tuple[str, str, str]:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    host = socket.gethostname() or "voicehost"
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.COMMON_NAME, f"voicehost on {host}"[:64]),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "voicehost (self-signed)"),
        ]
    )
    now = datetime.datetime.now(datetime.timezone.utc)
    alt: list[x509.GeneralName] = [x509.DNSName("localhost")]
    alt += [x509.IPAddress(a) for a in addresses]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
        .add_extension(x509.SubjectAlternativeName(alt), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode("ascii")
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")
    return cert_pem, key_pem, _fingerprint(cert.fingerprint(hashes.SHA256()))


def _fingerprint(digest: bytes) -> str:
    return ":".join(f"{b:02X}" for b in digest)


def server_context(certificate: Certificate) -> ssl.SSLContext:
    """A TLS server context with the certificate."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(certificate.cert), str(certificate.key))
    return context


def local_addresses() -> list[str]:
    """The machine's IPv4 addresses other than loopback, read from the interfaces (no packet
    is sent); private-network addresses (192.168.x, 10.x, 172.16-31.x) first."""
    import fcntl
    import struct

    found: list[str] = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(probe.fileno(), 0x8915, struct.pack("256s", name[:15].encode()))  # SIOCGIFADDR
            except OSError:
                continue
            address = socket.inet_ntoa(packed[20:24])
            if not ipaddress.ip_address(address).is_loopback and address not in found:
                found.append(address)
    finally:
        probe.close()
    return sorted(found, key=lambda a: (not ipaddress.ip_address(a).is_private, a))
