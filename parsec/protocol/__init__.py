"""The daemon wire protocol: message types (`messages`), line framing (`framing`) and a client
(`client`). Import the submodules; this package imports nothing heavy so hooks stay fast."""
