"""Network access for curl and wget: off unless the embedding program passes a
`NetworkConfig`; every request goes through `net.client.HttpClient`."""

from .config import Credential, NetworkConfig

__all__ = ["Credential", "NetworkConfig"]
