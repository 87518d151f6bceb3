/* SPDX-License-Identifier: MIT */
/*
 * net/net_oob.c - encode, validate and exchange setup messages.
 *
 * Owns: the byte layout of CONNECT / ACCEPT / REJECT (all big-endian):
 *
 *   header (12)  be32 magic "PRSM" | u8 version | u8 type | be16 0 | be32 body length
 *   CONNECT / ACCEPT body
 *                be32 node | be32 qpn | be32 psn | be32 max_pkt |
 *                be16 n_regions | be16 flags | be32 blob_len |
 *                be16 lid | u8 mtu | u8 0 | gid[16] |
 *                n_regions x { be64 addr | be32 rkey | be32 len } |
 *                with flag RING: be32 ring size | token[16] | name[44] | blob
 *   REJECT body  be32 errno | be16 reason_len | be16 0 | reason (UTF-8, no NUL)
 *
 * The body length must match what the body says exactly; the header's
 * length is checked against NET_OOB_MAX_BODY before a byte of the body is
 * read, so a hostile peer cannot make us allocate or wait for gigabytes.
 *
 * Must not: keep state between calls, print, or block past the deadline.
 */
#include "net/net_oob.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/byteorder.h"
#include "util/clock.h"

static const char *type_name(unsigned type)
{
	static const char *const names[] = {
	    [NET_OOB_CONNECT] = "CONNECT",
	    [NET_OOB_ACCEPT] = "ACCEPT",
	    [NET_OOB_REJECT] = "REJECT",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "?";
}

static int check_params(const struct net_oob_params *p, struct diag_report *diag, int code)
{
	if (p->qpn > 0xffffffu)
		return diag_report_set(diag, code, "QPN 0x%x does not fit 24 bits", p->qpn);
	if (p->psn > 0xffffffu)
		return diag_report_set(diag, code, "PSN 0x%x does not fit 24 bits", p->psn);
	if (p->mtu > 5)
		return diag_report_set(diag, code,
		                       "MTU code %u (1..5: 256..4096 bytes, 0: unknown)", p->mtu);
	if (p->n_regions > NET_OOB_MAX_REGIONS)
		return diag_report_set(diag, code, "%u regions, at most %u", p->n_regions,
		                       NET_OOB_MAX_REGIONS);
	if (p->blob_len > NET_OOB_MAX_BLOB)
		return diag_report_set(diag, code, "blob of %u bytes, at most %u", p->blob_len,
		                       NET_OOB_MAX_BLOB);
	if (p->flags & ~NET_OOB_FLAGS_KNOWN)
		return diag_report_set(diag, code, "unknown flags 0x%04x",
		                       p->flags & ~NET_OOB_FLAGS_KNOWN);
	return 0;
}

/* A ring socket name: 1..44 printable characters, no space. */
static bool ring_name_ok(const char *name)
{
	size_t n = strnlen(name, NET_OOB_RING_NAME + 1);

	if (!n || n > NET_OOB_RING_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] <= ' ' || name[i] > '~')
			return false;
	return true;
}

static size_t params_body(const struct net_oob_params *p)
{
	return NET_OOB_FIXED_BYTES + (size_t)p->n_regions * NET_OOB_REGION_BYTES +
	       (p->flags & NET_OOB_F_RING ? NET_OOB_RING_BYTES : 0) + p->blob_len;
}

int net_oob_encode(const struct net_oob_msg *m, void *buf, size_t cap, struct diag_report *diag)
{
	uint8_t *p = buf, *b = p + NET_OOB_HDR_BYTES;
	size_t body, reason_len = 0;
	unsigned i;
	int rc;

	if (!m || !buf)
		return diag_report_set(diag, -EINVAL, "setup message: NULL argument");
	if (m->type == NET_OOB_CONNECT || m->type == NET_OOB_ACCEPT) {
		rc = check_params(&m->params, diag, -EINVAL);
		if (rc)
			return rc;
		if ((m->params.flags & NET_OOB_F_RING) && !ring_name_ok(m->params.ring.name))
			return diag_report_set(diag, -EINVAL, "setup: bad ring socket name");
		body = params_body(&m->params);
	} else if (m->type == NET_OOB_REJECT) {
		reason_len = strnlen(m->reason, sizeof(m->reason));
		if (reason_len > NET_OOB_MAX_REASON)
			reason_len = NET_OOB_MAX_REASON;
		body = 8 + reason_len;
	} else {
		return diag_report_set(diag, -EINVAL, "setup message: unknown type %d",
		                       (int)m->type);
	}
	if (cap < NET_OOB_HDR_BYTES + body)
		return diag_report_set(diag, -ENOSPC,
		                       "setup message needs %zu bytes, buffer has %zu",
		                       NET_OOB_HDR_BYTES + body, cap);

	put_be32(p, NET_OOB_MAGIC);
	p[4] = NET_OOB_VERSION;
	p[5] = (uint8_t)m->type;
	put_be16(p + 6, 0);
	put_be32(p + 8, (uint32_t)body);
	if (m->type == NET_OOB_REJECT) {
		put_be32(b, m->reject_errno);
		put_be16(b + 4, (uint16_t)reason_len);
		put_be16(b + 6, 0);
		memcpy(b + 8, m->reason, reason_len);
		return (int)(NET_OOB_HDR_BYTES + body);
	}
	put_be32(b, m->params.node);
	put_be32(b + 4, m->params.qpn);
	put_be32(b + 8, m->params.psn);
	put_be32(b + 12, m->params.max_pkt);
	put_be16(b + 16, m->params.n_regions);
	put_be16(b + 18, m->params.flags);
	put_be32(b + 20, m->params.blob_len);
	put_be16(b + 24, m->params.lid);
	b[26] = m->params.mtu;
	b[27] = 0;
	memcpy(b + 28, m->params.gid, 16);
	b += NET_OOB_FIXED_BYTES;
	for (i = 0; i < m->params.n_regions; i++, b += NET_OOB_REGION_BYTES) {
		put_be64(b, m->params.regions[i].addr);
		put_be32(b + 8, m->params.regions[i].rkey);
		put_be32(b + 12, m->params.regions[i].len);
	}
	if (m->params.flags & NET_OOB_F_RING) {
		put_be32(b, m->params.ring.size);
		memcpy(b + 4, m->params.ring.token, NET_OOB_TOKEN_BYTES);
		memset(b + 4 + NET_OOB_TOKEN_BYTES, 0, NET_OOB_RING_NAME);
		memcpy(b + 4 + NET_OOB_TOKEN_BYTES, m->params.ring.name,
		       strlen(m->params.ring.name));
		b += NET_OOB_RING_BYTES;
	}
	if (m->params.blob_len)
		memcpy(b, m->params.blob, m->params.blob_len);
	return (int)(NET_OOB_HDR_BYTES + body);
}

/* Check the 12-byte header; sets *@body_len. */
static int decode_header(const uint8_t *p, uint32_t *body_len, unsigned *type,
                         struct diag_report *diag)
{
	uint32_t magic = get_be32(p);

	if (magic != NET_OOB_MAGIC)
		return diag_report_set(
		    diag, -EPROTO,
		    "setup header: magic 0x%08x is not \"PRSM\" (0x%08x): not a prism "
		    "peer",
		    magic, NET_OOB_MAGIC);
	if (p[4] != NET_OOB_VERSION)
		return diag_report_set(
		    diag, -EPROTONOSUPPORT,
		    "setup header: peer speaks setup protocol version %u, this side "
		    "speaks %u",
		    p[4], NET_OOB_VERSION);
	*type = p[5];
	if (*type < NET_OOB_CONNECT || *type > NET_OOB_REJECT)
		return diag_report_set(diag, -EPROTO, "setup header: unknown message type %u",
		                       *type);
	if (get_be16(p + 6))
		return diag_report_set(diag, -EPROTO, "setup header: reserved bytes 6-7 are 0x%04x",
		                       get_be16(p + 6));
	*body_len = get_be32(p + 8);
	if (*body_len > NET_OOB_MAX_BODY)
		return diag_report_set(diag, -EPROTO,
		                       "setup %s: body of %u bytes exceeds the %u-byte limit",
		                       type_name(*type), *body_len, NET_OOB_MAX_BODY);
	return 0;
}

static int decode_body(unsigned type, const uint8_t *b, uint32_t len, struct net_oob_msg *m,
                       struct diag_report *diag)
{
	struct net_oob_params *pp = &m->params;
	uint32_t need;
	unsigned i;

	m->type = (enum net_oob_type)type;
	if (type == NET_OOB_REJECT) {
		uint16_t rl;

		if (len < 8)
			return diag_report_set(diag, -EPROTO,
			                       "setup REJECT: body of %u bytes, at least 8 needed",
			                       len);
		m->reject_errno = get_be32(b);
		rl = get_be16(b + 4);
		if (get_be16(b + 6))
			return diag_report_set(diag, -EPROTO,
			                       "setup REJECT: reserved bytes 6-7 not 0");
		if (rl > NET_OOB_MAX_REASON || 8u + rl != len)
			return diag_report_set(
			    diag, -EPROTO, "setup REJECT: reason of %u bytes in a body of %u bytes",
			    rl, len);
		memcpy(m->reason, b + 8, rl);
		m->reason[rl] = '\0';
		return 0;
	}
	if (len < NET_OOB_FIXED_BYTES)
		return diag_report_set(diag, -EPROTO,
		                       "setup %s: body of %u bytes, %s needs at least %u",
		                       type_name(type), len, type_name(type), NET_OOB_FIXED_BYTES);
	pp->node = get_be32(b);
	pp->qpn = get_be32(b + 4);
	pp->psn = get_be32(b + 8);
	pp->max_pkt = get_be32(b + 12);
	pp->n_regions = get_be16(b + 16);
	pp->flags = get_be16(b + 18);
	pp->blob_len = get_be32(b + 20);
	pp->lid = get_be16(b + 24);
	pp->mtu = b[26];
	if (b[27])
		return diag_report_set(diag, -EPROTO, "setup %s: reserved body byte 27 not 0",
		                       type_name(type));
	memcpy(pp->gid, b + 28, 16);
	if (check_params(pp, diag, -EPROTO)) {
		char why[sizeof(diag->msg)];

		snprintf(why, sizeof(why), "%s", diag ? diag->msg : "");
		return diag_report_set(diag, -EPROTO, "setup %s: %s", type_name(type), why);
	}
	need = (uint32_t)params_body(pp);
	/* check_params bounded blob_len and n_regions: no overflow */
	if (need != len)
		return diag_report_set(
		    diag, -EPROTO,
		    "setup %s: %u regions%s and a %u-byte blob need a %u-byte body, "
		    "header says %u",
		    type_name(type), pp->n_regions,
		    pp->flags & NET_OOB_F_RING ? ", a ring block" : "", pp->blob_len, need, len);
	b += NET_OOB_FIXED_BYTES;
	for (i = 0; i < pp->n_regions; i++, b += NET_OOB_REGION_BYTES) {
		pp->regions[i].addr = get_be64(b);
		pp->regions[i].rkey = get_be32(b + 8);
		pp->regions[i].len = get_be32(b + 12);
	}
	if (pp->flags & NET_OOB_F_RING) {
		pp->ring.size = get_be32(b);
		memcpy(pp->ring.token, b + 4, NET_OOB_TOKEN_BYTES);
		memcpy(pp->ring.name, b + 4 + NET_OOB_TOKEN_BYTES, NET_OOB_RING_NAME);
		pp->ring.name[NET_OOB_RING_NAME] = '\0';
		for (i = strlen(pp->ring.name); i < NET_OOB_RING_NAME; i++)
			if (b[4 + NET_OOB_TOKEN_BYTES + i])
				return diag_report_set(diag, -EPROTO,
				                       "setup %s: ring name not NUL-padded",
				                       type_name(type));
		if (!ring_name_ok(pp->ring.name))
			return diag_report_set(diag, -EPROTO, "setup %s: bad ring socket name",
			                       type_name(type));
		b += NET_OOB_RING_BYTES;
	}
	pp->blob = pp->blob_len ? (uint8_t *)(uintptr_t)b : NULL;
	return 0;
}

int net_oob_decode(const void *buf, size_t len, struct net_oob_msg *m, struct diag_report *diag)
{
	uint32_t body;
	unsigned type;
	int rc;

	if (!buf || !m)
		return diag_report_set(diag, -EINVAL, "setup message: NULL argument");
	memset(m, 0, sizeof(*m));
	if (len < NET_OOB_HDR_BYTES)
		return diag_report_set(diag, -EPROTO,
		                       "setup message of %zu bytes, the header alone is %u", len,
		                       NET_OOB_HDR_BYTES);
	rc = decode_header(buf, &body, &type, diag);
	if (rc)
		return rc;
	if (len - NET_OOB_HDR_BYTES != body)
		return diag_report_set(diag, -EPROTO,
		                       "setup %s: header says %u body bytes, %zu present",
		                       type_name(type), body, len - NET_OOB_HDR_BYTES);
	return decode_body(type, (const uint8_t *)buf + NET_OOB_HDR_BYTES, body, m, diag);
}

static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	int64_t left = deadline - util_now_ms();
	int n;

	if (left < 0)
		left = 0;
	do
		n = poll(&pfd, 1, (int)left);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

/* Read exactly @len bytes; *@got says how many arrived before a failure. */
static int read_full(int fd, uint8_t *buf, size_t len, int64_t deadline, size_t *got)
{
	*got = 0;
	while (*got < len) {
		ssize_t n = recv(fd, buf + *got, len - *got, 0);

		if (n > 0) {
			*got += (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		n = wait_fd(fd, POLLIN, deadline);
		if (n)
			return (int)n;
	}
	return 0;
}

int net_oob_send(int fd, const struct net_oob_msg *m, int timeout_ms, struct diag_report *diag)
{
	int64_t deadline = util_now_ms() + timeout_ms;
	size_t off = 0;
	uint8_t *buf;
	int len, rc = 0;

	buf = malloc(NET_OOB_MAX_MSG);
	if (!buf)
		return diag_report_set(diag, -ENOMEM, "setup: out of memory");
	len = net_oob_encode(m, buf, NET_OOB_MAX_MSG, diag);
	if (len < 0) {
		free(buf);
		return len;
	}
	while (off < (size_t)len) {
		ssize_t n = send(fd, buf + off, (size_t)len - off, MSG_NOSIGNAL);

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			rc = wait_fd(fd, POLLOUT, deadline);
			if (rc)
				break;
			continue;
		}
		rc = n < 0 ? -errno : -EPIPE;
		break;
	}
	free(buf);
	if (rc)
		return diag_report_set(diag, rc, "setup %s: sending: %s", type_name(m->type),
		                       strerror(-rc));
	return 0;
}

static int recv_fail(struct diag_report *diag, int rc, const char *what, size_t got, size_t want)
{
	if (rc == -ECONNRESET)
		return diag_report_set(
		    diag, -EPROTO,
		    "setup exchange truncated: peer closed after %zu of %zu %s bytes", got, want,
		    what);
	if (rc == -ETIMEDOUT)
		return diag_report_set(diag, rc,
		                       "setup exchange: timed out after %zu of %zu %s bytes", got,
		                       want, what);
	return diag_report_set(diag, rc, "setup exchange: reading %s: %s", what, strerror(-rc));
}

/* Decode a body of @type into @m with its own copy of the blob (the body
 * stays the caller's). */
static int decode_owned(unsigned type, const uint8_t *body, uint32_t len, struct net_oob_msg *m,
                        struct diag_report *diag)
{
	uint8_t *blob = NULL;
	int rc = decode_body(type, body, len, m, diag);

	if (!rc && m->params.blob_len) {
		blob = malloc(m->params.blob_len);
		if (!blob)
			rc = diag_report_set(diag, -ENOMEM,
			                     "setup: out of memory for a %u-byte blob",
			                     m->params.blob_len);
		else
			memcpy(blob, m->params.blob, m->params.blob_len);
	}
	m->params.blob = blob;
	if (rc)
		m->params.blob_len = 0;
	return rc;
}

int net_oob_recv(int fd, struct net_oob_msg *m, int timeout_ms, struct diag_report *diag)
{
	uint8_t hdr[NET_OOB_HDR_BYTES], *body;
	int64_t deadline = util_now_ms() + timeout_ms;
	uint32_t body_len;
	unsigned type;
	size_t got;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = read_full(fd, hdr, sizeof(hdr), deadline, &got);
	if (rc)
		return recv_fail(diag, rc, "header", got, sizeof(hdr));
	rc = decode_header(hdr, &body_len, &type, diag);
	if (rc)
		return rc;
	body = malloc(body_len ? body_len : 1);
	if (!body)
		return diag_report_set(diag, -ENOMEM, "setup: out of memory for a %u-byte body",
		                       body_len);
	rc = read_full(fd, body, body_len, deadline, &got);
	if (rc) {
		free(body);
		return recv_fail(diag, rc, "body", got, body_len);
	}
	rc = decode_owned(type, body, body_len, m, diag);
	free(body);
	return rc;
}

int net_oob_rx_step(struct net_oob_rx *rx, int fd, struct net_oob_msg *m, struct diag_report *diag)
{
	uint32_t max = rx->max_body ? rx->max_body : NET_OOB_MAX_BODY;

	memset(m, 0, sizeof(*m));
	for (;;) {
		bool in_hdr = rx->got < NET_OOB_HDR_BYTES;
		size_t want = in_hdr ? NET_OOB_HDR_BYTES - rx->got
		                     : NET_OOB_HDR_BYTES + rx->body_len - rx->got;
		uint8_t *dst = in_hdr ? rx->hdr + rx->got : rx->body + rx->got - NET_OOB_HDR_BYTES;
		ssize_t n;
		int rc;

		if (!in_hdr && !want)
			return decode_owned(rx->type, rx->body, rx->body_len, m, diag) ?: 1;
		n = recv(fd, dst, want, 0);
		if (n == 0)
			return diag_report_set(
			    diag, -EPROTO, "setup exchange truncated: peer closed after %zu bytes",
			    rx->got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return diag_report_set(diag, -errno, "setup exchange: reading: %s",
			                       strerror(errno));
		rx->got += (size_t)n;
		if (!in_hdr || rx->got < NET_OOB_HDR_BYTES)
			continue;
		rc = decode_header(rx->hdr, &rx->body_len, &rx->type, diag);
		if (rc)
			return rc;
		if (rx->body_len > max)
			return diag_report_set(diag, -EPROTO,
			                       "setup %s: body of %u bytes exceeds this listener's "
			                       "%u-byte limit",
			                       type_name(rx->type), rx->body_len, max);
		rx->body = malloc(rx->body_len ? rx->body_len : 1);
		if (!rx->body)
			return diag_report_set(
			    diag, -ENOMEM, "setup: out of memory for a %u-byte body", rx->body_len);
	}
}

void net_oob_rx_free(struct net_oob_rx *rx)
{
	free(rx->body);
	rx->body = NULL;
}

void net_oob_params_release(struct net_oob_params *p)
{
	if (!p)
		return;
	free(p->blob);
	p->blob = NULL;
	p->blob_len = 0;
}

int net_oob_client(int fd, const struct net_oob_params *mine, struct net_oob_params *peer,
                   int timeout_ms, struct diag_report *diag)
{
	struct net_oob_msg out = {.type = NET_OOB_CONNECT}, in;
	int rc;

	out.params = *mine;
	rc = net_oob_send(fd, &out, timeout_ms, diag);
	if (rc)
		return rc;
	rc = net_oob_recv(fd, &in, timeout_ms, diag);
	if (rc)
		return rc;
	if (in.type != NET_OOB_ACCEPT)
		net_oob_params_release(&in.params);
	/* the reason is the server's whole message (its code may be a prism
	 * code, which strerror does not know); a busy server says so apart */
	if (in.type == NET_OOB_REJECT)
		return diag_report_set(diag, in.reject_errno == EBUSY ? NET_E_BUSY : -ECONNREFUSED,
		                       "server rejected the connection: %s",
		                       in.reason[0] ? in.reason : "no reason given");
	if (in.type != NET_OOB_ACCEPT)
		return diag_report_set(diag, -EPROTO, "setup: expected ACCEPT or REJECT, got %s",
		                       type_name(in.type));
	*peer = in.params;
	return 0;
}
