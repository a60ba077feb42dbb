# Varnish (Debian: `apt-get install varnish`, 7.1) in front of two instances of the Author
# Publishing API. Copy to /etc/varnish/default.vcl; start varnishd as
# deploy/systemd/varnish.service.d/publishing.conf does, with three named listen sockets:
#
#   http   :80                   plain HTTP from clients (client.ip is the client)
#   tls    127.0.0.1:8443,PROXY  from the TLS terminator on this machine (deploy/hitch/): the
#                                PROXY protocol header names the client, so client.ip is the
#                                reader's address, not 127.0.0.1
#   purge  127.0.0.1:6091        PURGE from the instances (their CACHE_PURGE_URLS) only
#
# and `-p backend_idle_timeout=3` (below the instances' 5 s keep-alive: a reused connection is
# never one the instance is closing).
#
#   blog.example.com     article pages (/<slug>-<public_id>) and /api/media/, cached
#   console.example.com  the console, the REST API and media, never cached
#
# tests/deployment/ starts exactly this file (only the backend ports rewritten) with the drop-in's
# flags.
vcl 4.1;

import std;
import directors;

# An instance answering anything but 200 on /api/health (database unreachable, draining before
# a stop: SHUTDOWN_DRAIN_MS) leaves the rotation within about a second, and comes back as soon
# as two of its last three checks pass.
probe health {
    .url = "/api/health";
    .expected_response = 200;
    .interval = 500ms;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 1;
}

backend app1 {
    .host = "127.0.0.1";
    .port = "3001";
    .probe = health;
    .connect_timeout = 1s;
    .first_byte_timeout = 120s;
}

backend app2 {
    .host = "127.0.0.1";
    .port = "3002";
    .probe = health;
    .connect_timeout = 1s;
    .first_byte_timeout = 120s;
}

acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_init {
    new instances = directors.round_robin();
    instances.add_backend(app1);
    instances.add_backend(app2);
}

sub vcl_recv {
    set req.backend_hint = instances.backend();
    if (req.method == "PURGE") {
        # Only on the purge socket, which only this machine reaches: with TLS terminated here
        # every client arrives from 127.0.0.1 too, so the address alone proves nothing.
        if (local.socket != "purge" || client.ip !~ purgers) {
            return (synth(405, "Not allowed"));
        }
        set req.url = regsub(req.url, "\?.*$", "");
        return (purge);
    }
    if (local.socket == "purge") {
        return (synth(404, "Not Found"));
    }
    if (req.http.host ~ "^console\.example\.com(:[0-9]+)?$") {
        if (req.url ~ "^/(console|_next/|api/v1/author/|api/media/)") {
            return (pass);
        }
        return (synth(404, "Not Found"));
    }
    if (req.http.host ~ "^blog\.example\.com(:[0-9]+)?$") {
        if (req.method != "GET" && req.method != "HEAD") {
            return (synth(405, "Method Not Allowed"));
        }
        # One key per page or file, the path the instances purge: a query string never changes
        # a page or a file (`?x=1` cannot plant a copy a purge would miss), and every public
        # path is lower case (slugs, public ids, media uuids), so another case is the same path.
        set req.url = std.tolower(regsub(req.url, "\?.*$", ""));
        if (req.url ~ "^/[^/]+-[0-9a-z]{10}$" || req.url ~ "^/api/media/[^/]+$") {
            unset req.http.Cookie;
            unset req.http.Authorization;
            # A percent-escape is another spelling of a path that has none: the instance answers
            # it with a redirect to the canonical path (or 404), never stored under this key.
            if (req.url ~ "%") {
                return (pass);
            }
            # While an instance is up, an expired copy is fetched again before it is shown (a
            # few seconds of stale-while-revalidate at most); while none is, the copy is served
            # as long as the page's Cache-Control allows (its grace, below).
            if (std.healthy(req.backend_hint)) {
                set req.grace = 5s;
            }
            return (hash);
        }
        # The reader beacons are answered by an instance every time (they count what readers
        # do; never cached, `no-store`). The instances tell readers apart by the address in
        # X-Forwarded-For (TRUSTED_PROXIES names this machine); Varnish is the edge here, so
        # the header is the connecting client's address alone, never what the client sent
        # (behind a CDN, keep the CDN's header instead and trust the CDN's addresses).
        if (req.url ~ "^/api/reader/[0-9a-z]{10}/(open|read|complete)\.gif$") {
            set req.http.X-Forwarded-For = client.ip;
            unset req.http.Cookie;
            unset req.http.Authorization;
            return (pass);
        }
        return (synth(404, "Not Found"));
    }
    return (synth(404, "Not Found"));
}

# The path alone: the public host is the only one cached, and PURGE names paths.
sub vcl_hash {
    hash_data(req.url);
    return (lookup);
}

sub vcl_hit {
    if (obj.ttl <= 0s) {
        set req.http.X-Cache-State = "STALE";
    }
}

sub vcl_backend_fetch {
    # A retry goes to the other instance, not to the one that just failed.
    if (bereq.retries > 0) {
        if (bereq.http.X-Failed-Backend == "app1") {
            set bereq.backend = app2;
        } else {
            set bereq.backend = app1;
        }
    }
    unset bereq.http.X-Failed-Backend;
}

sub vcl_backend_response {
    # s-maxage is the TTL (Varnish reads it); the grace is what Cache-Control allows beyond it:
    # the longer of stale-while-revalidate and stale-if-error.
    if (beresp.http.Cache-Control ~ "stale-while-revalidate=[0-9]+") {
        set beresp.grace = std.duration(regsub(beresp.http.Cache-Control, "^.*stale-while-revalidate=([0-9]+).*$", "\1s"), 0s);
    }
    if (beresp.http.Cache-Control ~ "stale-if-error=[0-9]+"
        && std.duration(regsub(beresp.http.Cache-Control, "^.*stale-if-error=([0-9]+).*$", "\1s"), 0s) > beresp.grace) {
        set beresp.grace = std.duration(regsub(beresp.http.Cache-Control, "^.*stale-if-error=([0-9]+).*$", "\1s"), 0s);
    }
}

sub vcl_backend_error {
    # An instance that died or refused: the request is tried on the other one when that is
    # safe. GET and HEAD always. A write with a body too: Varnish streams the body to the
    # instance without keeping it, so once any of it was sent it refuses the retry ("Retry not
    # possible, req.body not cached") and the client gets the 503; only a write whose
    # connection was refused, which nothing received, goes to the other instance.
    if (bereq.retries < 2
        && (bereq.method == "GET" || bereq.method == "HEAD" || bereq.http.Content-Length ~ "^[1-9]")) {
        set bereq.http.X-Failed-Backend = beresp.backend.name;
        return (retry);
    }
    # No instance could answer: the API's own error shape, so a client handles it as any 503.
    if (bereq.url ~ "^/api/") {
        set beresp.http.Content-Type = "application/json";
        set beresp.http.Retry-After = "1";
        synthetic({"{"error":"No instance is available; try again shortly","code":"service_unavailable" }"});
        return (deliver);
    }
}

sub vcl_synth {
    # A write whose body was already on its way to an instance that died cannot be sent again
    # ("Retry not possible, req.body not cached"): it ends here, not in vcl_backend_error, and
    # gets the API's error shape too.
    if (resp.status == 503 && req.url ~ "^/api/") {
        set resp.http.Content-Type = "application/json";
        set resp.http.Retry-After = "1";
        synthetic({"{"error":"No instance is available; try again shortly","code":"service_unavailable" }"});
        return (deliver);
    }
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
        if (req.http.X-Cache-State) {
            set resp.http.X-Cache = req.http.X-Cache-State;
        }
    } else {
        set resp.http.X-Cache = "MISS";
    }
}
