"""Digest delivery's SMTP security against real aiosmtpd servers on 127.0.0.1: the security setting is one of
three exact values (a typo stops the program at start), a login never crosses the network in plain text,
STARTTLS and SSL with a certificate made here, and the password never printed."""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from pydantic import ValidationError

from papersift.library.digest import DigestError, send
from papersift.settings import Settings
from tests.certs import Certificates, make_certificates
from tests.support.processes import free_port, run_cli

PASSWORD = "hunter2-never-shown"
# the servers below that offer AUTH without STARTTLS do so on purpose (aiosmtpd warns about it)
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")


@dataclass
class Mailbox:
    """An aiosmtpd handler and authenticator: the messages it took, every login it saw (over TLS or not)."""

    messages: list[bytes] = field(default_factory=list)
    logins: list[tuple[str, str, bool]] = field(default_factory=list)  # user, password, over TLS

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        self.messages.append(envelope.content)
        return "250 OK"

    def __call__(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        assert isinstance(data, LoginPassword)
        user, password = data.login.decode(), data.password.decode()
        over_tls = server.transport is not None and server.transport.get_extra_info("ssl_object") is not None
        self.logins.append((user, password, over_tls))
        return AuthResult(success=user == "ada" and password == PASSWORD, handled=False)


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def trusted(certs: Certificates, monkeypatch: pytest.MonkeyPatch) -> Certificates:
    """The test CA trusted by ``ssl.create_default_context`` (as a lab's own CA would be, system-wide)."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certs.ca))
    return certs


def server_context(certs: Certificates) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certs.cert, certs.key)
    return context


@contextlib.contextmanager
def smtp_server(**options: Any) -> Iterator[tuple[Mailbox, int]]:
    """A real SMTP server on 127.0.0.1 that asks for a login (``options``: aiosmtpd's TLS settings)."""
    box = Mailbox()
    port = free_port()
    controller = Controller(
        box, hostname="127.0.0.1", port=port, authenticator=box, auth_required=True, **options
    )
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


def mail() -> EmailMessage:
    msg = EmailMessage()
    msg["Subject"], msg["From"], msg["To"] = "papersift: 1 paper", "radar@lab.example", "ada@lab.example"
    msg.set_content("#01 A paper")
    return msg


def settings(port: int, security: str, **more: Any) -> Settings:
    return Settings(
        **{
            "smtp_port": port,
            "smtp_security": security,
            "smtp_user": "ada",
            "smtp_password": PASSWORD,
            "smtp_timeout": 5,
            **more,
        }
    )


@pytest.mark.process  # every command, each in its own process
@pytest.mark.parametrize("typo", ["tls", "STARTTLS", "SSL", "starttls ", "yes", ""])
def test_an_smtp_security_typo_stops_every_command_at_start(tmp_path: Path, typo: str) -> None:
    with pytest.raises(ValidationError):
        Settings(smtp_security=typo)
    env = {"PAPERSIFT_SMTP_SECURITY": typo, "PAPERSIFT_SMTP_USER": "ada", "PAPERSIFT_SMTP_PASSWORD": PASSWORD}
    result = run_cli("daily", "--no-sync", home=tmp_path, env=env, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "PAPERSIFT_SMTP_SECURITY" in result.stderr and "'none', 'starttls' or 'ssl'" in result.stderr
    assert PASSWORD not in result.stderr + result.stdout
    assert not (tmp_path / "papersift.db").exists()  # refused before anything was opened


@pytest.mark.process
def test_a_login_in_plain_text_to_another_host_is_refused_at_start(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="plain text"):
        Settings(smtp_host="mail.lab.example", smtp_user="ada", smtp_password=PASSWORD)
    env = {"PAPERSIFT_SMTP_HOST": "mail.lab.example", "PAPERSIFT_SMTP_USER": "ada"}
    result = run_cli("daily", "--no-sync", home=tmp_path, env=env, check=False)
    assert result.returncode == 2 and "starttls or ssl" in result.stderr
    for allowed in ("starttls", "ssl"):  # with TLS, or without a login, any host is fine
        Settings(smtp_host="mail.lab.example", smtp_user="ada", smtp_security=allowed)
    Settings(smtp_host="mail.lab.example")


def test_the_password_is_a_secret_never_printed() -> None:
    s = settings(25, "starttls", smtp_host="mail.lab.example")
    assert PASSWORD not in repr(s) and PASSWORD not in str(s) and PASSWORD not in str(s.model_dump())
    assert s.smtp_password is not None and s.smtp_password.get_secret_value() == PASSWORD


def test_starttls_logs_in_over_tls_and_delivers(trusted: Certificates) -> None:
    with smtp_server(tls_context=server_context(trusted), require_starttls=True) as (box, port):
        send(settings(port, "starttls", smtp_host="localhost"), mail())
    assert box.logins == [("ada", PASSWORD, True)] and len(box.messages) == 1


def test_ssl_logs_in_over_tls_and_delivers(trusted: Certificates) -> None:
    # TLS from the first byte (aiosmtpd only counts STARTTLS as TLS for its own AUTH check)
    with smtp_server(ssl_context=server_context(trusted), auth_require_tls=False) as (box, port):
        send(settings(port, "ssl", smtp_host="localhost"), mail())
    assert box.logins == [("ada", PASSWORD, True)] and len(box.messages) == 1


def test_starttls_to_a_server_without_it_fails_and_sends_no_login() -> None:
    # the server offers AUTH in plain text and no STARTTLS
    with smtp_server(auth_require_tls=False) as (box, port), pytest.raises(DigestError, match="STARTTLS"):
        send(settings(port, "starttls"), mail())
    assert box.logins == [] and box.messages == []


def test_an_untrusted_certificate_fails_before_the_login(certs: Certificates) -> None:
    untrusted = smtp_server(tls_context=server_context(certs), require_starttls=True)
    with untrusted as (box, port), pytest.raises(DigestError, match="CERTIFICATE_VERIFY_FAILED"):
        send(settings(port, "starttls", smtp_host="localhost"), mail())
    assert box.logins == [] and box.messages == []


def test_a_plain_text_login_goes_to_a_loopback_host_only(tmp_path: Path) -> None:
    with smtp_server(auth_require_tls=False) as (box, port):
        send(settings(port, "none"), mail())  # 127.0.0.1: the password never leaves the machine
    assert box.logins == [("ada", PASSWORD, False)] and len(box.messages) == 1


def test_a_wrong_password_is_reported_without_it(trusted: Certificates) -> None:
    only_plain = {"auth_exclude_mechanism": ["LOGIN"]}  # one mechanism: one login per connection
    with smtp_server(tls_context=server_context(trusted), require_starttls=True, **only_plain) as (box, port):
        wrong = settings(port, "starttls", smtp_host="localhost", smtp_password=PASSWORD + "x")
        with pytest.raises(DigestError) as failed:
            send(wrong, mail())
    assert "login refused" in str(failed.value) and PASSWORD not in str(failed.value)
    assert len(box.logins) == 1 and box.messages == []  # a refused login is not tried again
