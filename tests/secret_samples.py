"""One fake credential per family the secret gate covers (docs/adr/0018).

Built by concatenation so no scanner mistakes this file for a leak. Each sample is
``(label the gate must report, text)``.
"""

from __future__ import annotations

_A20 = "abcdefghij" * 2
_H32 = "0123456789abcdef" * 2
_H64 = _H32 * 2

SAMPLES: tuple[tuple[str, str], ...] = (
    ("provider API key", "sk-" + "proj" + _A20),
    ("provider API key", "sk-" + "ant-" + "api03-" + _A20),
    ("Stripe key", "sk_" + "live_" + _A20),
    ("Stripe key", "rk_" + "test_" + _A20),
    ("npm token", "npm_" + _A20 + "0123"),
    ("Hugging Face token", "hf_" + _A20 + "xyz"),
    ("GitHub token", "ghp_" + _A20 + "0123456789abcdef"),
    ("GitHub token", "github_" + "pat_" + _A20 + "_" + _A20),
    ("GitLab token", "glpat-" + _A20),
    ("Google API key", "AIza" + "Sy" + _A20 + "0123456789abc"),
    ("Slack token", "xoxb-" + "1234567890-" + _A20),
    ("Slack token", "xoxc-" + "1234567890-" + _A20),
    ("Slack token", "xoxs-" + "1234-5678-9012-abcdef0123"),
    ("Slack token", "https://hooks.slack.com/services/T0000/B0000/" + _A20 + "ABCD"),
    ("AWS access key", "AKIA" + "IOSFODNN7EXAMPLE"),
    (
        "AWS secret access key",
        "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
    ),
    ("private key", "-----BEGIN " + "RSA PRIVATE KEY-----"),
    ("private key", "-----BEGIN " + "PGP PRIVATE KEY BLOCK-----"),
    ("private key", "-----BEGIN " + "OPENSSH PRIVATE KEY-----"),
    ("private key", "PuTTY-User-" + "Key-File-2: ssh-rsa"),
    (
        "JSON Web Token",
        "eyJ" + "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    ),
    ("bearer token", "Authorization: Bearer " + _A20 + "0123"),
    ("authorization header", "Authorization: Basic " + "dXNlcjpwYXNzd29yZA=="),
    ("password in URL", "postgres://admin:" + "hunter22@db.internal/app"),
    ("password or secret assignment", "password=" + "hunter2"),
    ("password or secret assignment", "DB_PASSWORD: " + "s3cr3t-Pass!"),
    ("password or secret assignment", '"client_secret": "' + "Zx81kq0Lw" + '"'),
    ("password or secret assignment", "export API_TOKEN=" + "q8Wm2xY7pLk4"),
    ("Azure storage key", "AccountKey=" + _A20 + _A20 + "+/=="),
    ("Twilio key", "SK" + _H32),
    ("SendGrid key", "SG." + _A20[:22] + "." + _A20 + _A20[:23]),
    ("Mailchimp key", _H32 + "-us12"),
    ("Mailgun key", "key-" + _H32),
    ("Square token", "sq0atp-" + _A20 + "abcd"),
    ("Discord bot token", "MTk4NjIy" + "NDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs"),
    ("Telegram bot token", "123456789:AA" + _A20 + "abcdefghijklm"),
    ("PyPI token", "pypi-AgEIcHlwaS5vcmc" + _A20 * 3),
    ("Artifactory token", "AKCp" + _A20 * 3 + "abc"),
    ("Vault token", "hvs." + _A20 * 5),
    ("service token", "dop_v1_" + _H64),
    ("service token", "shpat_" + _H32),
    ("service token", "lin_api_" + _A20 * 2),
)
