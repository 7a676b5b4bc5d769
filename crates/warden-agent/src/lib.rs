//! `warden agent`: the host agent.
