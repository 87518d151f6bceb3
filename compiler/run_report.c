/* SPDX-License-Identifier: MIT */
/*
 * compiler/run_report.c - the report of one invocation (run_report.h).
 *
 *     entry get: returned                 entry get: finished without a return:
 *       return site  2                      no `return` ran, so there is no value
 *       value        0011...              entry put: ran to the end (it returns
 *       latency      6.55 us virtual ...    nothing)
 *
 * Owns: the wording above and the JSON object of `--json` (built with
 * jansson, so escaping and number formats are the library's).
 * Must not: print anything but the report to the stream it is given.
 */
#include "compiler/run_report.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>

#include "util/byteorder.h"
#include "util/json_text.h"

/* The value as a number: a little-endian integer of 1..8 bytes. */
static bool value_number(const struct run_outcome *o, uint64_t *v)
{
	if (!o->value_le || !o->value_len || o->value_len > 8)
		return false;
	*v = get_le(o->value, o->value_len);
	return true;
}

static const char *name_of(const struct run_outcome *o)
{
	return o->value_name ? o->value_name : "value";
}

/* Emit @obj on one line; jansson keeps the keys in insertion order. */
static void dump_line(FILE *out, json_t *obj)
{
	if (obj)
		json_dumpf(obj, out, JSON_COMPACT);
	fputc('\n', out);
	json_decref(obj);
}

static void print_json(FILE *out, const struct run_outcome *o)
{
	json_t *results = json_object();
	uint64_t v;

	if (o->ret_site && o->has_result) {
		if (value_number(o, &v))
			json_object_set_new(results, name_of(o),
			                    v <= INT64_MAX ? json_integer((json_int_t)v)
			                                   : json_sprintf("%" PRIu64, v));
		else
			json_object_set_new(results, name_of(o), json_hex(o->value, o->value_len));
	}
	json_t *obj = json_pack("{s:o, s:i, s:I, s:o, s:b}", "entry", json_text(o->entry), "status",
	                        o->status, "return_site", (json_int_t)o->ret_site, "results",
	                        results, "returned", o->ret_site != 0);

	if (obj && o->count) {
		json_object_set_new(obj, "latency_ns", json_integer((json_int_t)o->wall_ns));
		json_object_set_new(obj, "count", json_integer((json_int_t)o->count));
	} else if (obj && o->engine) {
		json_object_set_new(obj, "virtual_ns", json_integer((json_int_t)o->virt_ns));
		json_object_set_new(obj, "profile", json_string(o->engine));
	} else if (obj) {
		json_object_set_new(obj, "reference", json_true());
	}
	dump_line(out, obj);
}

void run_report_print(FILE *out, const struct run_outcome *o, bool json)
{
	uint64_t v;

	if (json) {
		print_json(out, o);
		return;
	}
	if (o->ret_site)
		fprintf(out, "entry %s: returned\n  return site  %u\n", o->entry, o->ret_site);
	else if (o->has_result)
		fprintf(out,
		        "entry %s: finished without a return: no `return` ran, so there is no "
		        "value\n",
		        o->entry);
	else
		fprintf(out, "entry %s: ran to the end (it returns nothing)\n", o->entry);
	if (o->ret_site && o->has_result) {
		fprintf(out, "  %-12s ", name_of(o));
		if (value_number(o, &v)) {
			fprintf(out, "%" PRIu64 " (0x%" PRIx64 ")\n", v, v);
		} else {
			for (size_t i = 0; i < o->value_len; i++)
				fprintf(out, "%02x", o->value[i]);
			fputc('\n', out);
		}
	}
	if (o->count)
		fprintf(out,
		        "  latency      %.2f us wall clock (%s of %" PRIu64
		        ", request to result)\n",
		        (double)o->wall_ns / 1000.0, o->count > 1 ? "median" : "one", o->count);
	else if (o->engine)
		fprintf(out,
		        "  latency      %.2f us virtual (cost profile %s; client SEND to result)\n",
		        (double)o->virt_ns / 1000.0, o->engine);
	else
		fprintf(out, "  reference    computed by the reference interpreter (no NIC, no "
		             "latency)\n");
}

void run_report_error_json(FILE *out, const char *entry, const char *message, int exit_status)
{
	json_t *obj = json_object();

	if (entry)
		json_object_set_new(obj, "entry", json_string(entry));
	json_object_set_new(obj, "error", json_string(message ? message : ""));
	json_object_set_new(obj, "exit_status", json_integer(exit_status));
	dump_line(out, obj);
}
