"""Real X.509 material for TLS tests: a CA, a server certificate for 127.0.0.1/localhost and client
certificates whose CN is an identity. Made with the ``cryptography`` package when it is installed,
else with the ``openssl`` command line."""

from __future__ import annotations

import datetime
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pair:
    cert: Path
    key: Path

    @property
    def cert_pem(self) -> bytes:
        return self.cert.read_bytes()

    @property
    def key_pem(self) -> bytes:
        return self.key.read_bytes()


class Authority:
    """A throwaway certificate authority in ``folder``."""

    def __init__(self, folder: Path, name: str = "stratum-test-ca"):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.name = name
        self.ca = self._make(name, ca=True)

    def server(self, name: str = "server") -> Pair:
        return self._make(name, san=True)

    def client(self, cn: str) -> Pair:
        return self._make(cn)

    def _make(self, cn: str, *, ca: bool = False, san: bool = False) -> Pair:
        try:
            import cryptography  # noqa: F401
        except ImportError:
            return self._openssl(cn, ca=ca, san=san)
        return self._cryptography(cn, ca=ca, san=san)

    def _paths(self, cn: str) -> Pair:
        safe = "".join(ch if ch.isalnum() else "_" for ch in cn)
        return Pair(self.folder / f"{safe}.crt", self.folder / f"{safe}.key")

    def _cryptography(self, cn: str, *, ca: bool, san: bool) -> Pair:
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

        key = ec.generate_private_key(ec.SECP256R1())
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
        if ca:
            issuer, signing_key = subject, key
        else:
            ca_cert = x509.load_pem_x509_certificate(self.ca.cert_pem)
            issuer = ca_cert.subject
            signing_key = serialization.load_pem_private_key(self.ca.key_pem, password=None)
        now = datetime.datetime.now(datetime.timezone.utc)
        b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
             .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
             .not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if not ca:
            usage = ExtendedKeyUsageOID.SERVER_AUTH if san else ExtendedKeyUsageOID.CLIENT_AUTH
            b = b.add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
        if san:
            b = b.add_extension(x509.SubjectAlternativeName([
                x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        cert = b.sign(signing_key, hashes.SHA256())
        pair = self._paths(cn)
        pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        pair.key.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        return pair

    def _openssl(self, cn: str, *, ca: bool, san: bool) -> Pair:
        openssl = shutil.which("openssl")
        if openssl is None:
            raise RuntimeError("neither the cryptography package nor openssl is available to make test certificates")
        pair = self._paths(cn)
        run = lambda *a: subprocess.run([openssl, *a], check=True, capture_output=True)  # noqa: E731
        run("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", str(pair.key))
        if ca:
            run("req", "-x509", "-new", "-key", str(pair.key), "-subj", f"/CN={cn}", "-days", "1",
                "-addext", "basicConstraints=critical,CA:TRUE", "-out", str(pair.cert))
            return pair
        csr = pair.cert.with_suffix(".csr")
        ext = pair.cert.with_suffix(".ext")
        ext.write_text("basicConstraints=critical,CA:FALSE\n" + (
            "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n" if san
            else "extendedKeyUsage=clientAuth\n"))
        run("req", "-new", "-key", str(pair.key), "-subj", f"/CN={cn}", "-out", str(csr))
        run("x509", "-req", "-in", str(csr), "-CA", str(self.ca.cert), "-CAkey", str(self.ca.key),
            "-CAcreateserial", "-days", "1", "-extfile", str(ext), "-out", str(pair.cert))
        return pair


__all__ = ["Authority", "Pair"]
