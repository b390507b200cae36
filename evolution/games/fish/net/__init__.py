"""Fish on the host's network: the proxy player (``proxy_player``), the dialects as the host speaks them
(``dialects``) and a client's side of them (``conversations``)."""
