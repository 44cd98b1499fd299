/*
 * llm_conv.h - a provider-neutral conversation: messages made of parts
 * (text, PNG image, tool call, tool result), and the reply of one model turn.
 *
 * The wire modules (llm_wire.h) translate a conversation to each provider's
 * JSON and a provider's answer back to an fs_llm_reply. An assistant message
 * may also keep the provider's own JSON for that turn ("raw"): Gemini wants
 * its content (thoughtSignature included) sent back verbatim, and the other
 * wires echo it too when the provider matches, so nothing is lost in
 * translation.
 *
 * Ownership: the conversation owns every message, part and string in it
 * (copied on insertion); fs_conv_free releases everything (tolerates NULL).
 * fs_conv_add_reply moves the reply's raw JSON into the conversation (the
 * reply's pointer is set to NULL). An fs_llm_reply owns its strings, calls
 * and raw JSON; fs_llm_reply_free releases them and zeroes the struct.
 * All add functions return 0, or -1 on out of memory.
 */
#ifndef FS_LLM_CONV_H
#define FS_LLM_CONV_H

#include <stddef.h>
#include <cJSON.h>

typedef enum fs_msg_role { FS_ROLE_USER, FS_ROLE_ASSISTANT } fs_msg_role;

typedef enum fs_part_kind {
	FS_PART_TEXT,
	FS_PART_IMAGE,
	FS_PART_TOOL_CALL,
	FS_PART_TOOL_RESULT
} fs_part_kind;

typedef struct fs_part {
	fs_part_kind kind;
	char *text;       /* TEXT; TOOL_RESULT: the result JSON as text */
	char *image_b64;  /* IMAGE; TOOL_RESULT: optional screenshot (no data: prefix) */
	char *media_type; /* with image_b64, e.g. "image/png" */
	char *id;         /* TOOL_CALL / TOOL_RESULT: the call id */
	char *name;       /* TOOL_CALL / TOOL_RESULT: the tool name */
	cJSON *args;      /* TOOL_CALL: arguments object */
	int is_error;     /* TOOL_RESULT: failure or rejection */
} fs_part;

typedef struct fs_msg {
	fs_msg_role role;
	fs_part *parts;
	size_t n, cap;
	cJSON *raw;            /* provider's own JSON for an assistant turn, or NULL */
	char raw_wire[16];     /* which wire raw belongs to */
} fs_msg;

typedef struct fs_conv {
	char *system;
	fs_msg *msgs;
	size_t n, cap;
} fs_conv;

typedef struct fs_tool_call {
	char *id;
	char *name;
	cJSON *args;       /* always an object (empty when the model sent none) */
	char *args_error;  /* set when the model's argument text was not a JSON object */
	int from_text;     /* parsed out of prose (text protocol), not a native call */
} fs_tool_call;

typedef struct fs_llm_reply {
	char *text;          /* concatenated text parts, or NULL */
	fs_tool_call *calls;
	size_t ncalls;
	char *stop_reason;   /* the provider's own word (end_turn, tool_use, stop, STOP, ...) */
	long in_tokens;
	long out_tokens;
	cJSON *raw;          /* provider-native assistant content to echo back */
	char raw_wire[16];
} fs_llm_reply;

void fs_conv_init(fs_conv *c);
void fs_conv_free(fs_conv *c);
int fs_conv_set_system(fs_conv *c, const char *system);
/* Appends an empty message; the pointer is valid until the next fs_conv_add*. */
fs_msg *fs_conv_add(fs_conv *c, fs_msg_role role);

int fs_msg_add_text(fs_msg *m, const char *text);
/* b64 may carry a "data:<type>;base64," prefix; it is stripped. */
int fs_msg_add_image(fs_msg *m, const char *b64, const char *media_type);
int fs_msg_add_tool_call(fs_msg *m, const char *id, const char *name, const cJSON *args);
int fs_msg_add_tool_result(fs_msg *m, const char *id, const char *name, const char *text,
			   int is_error, const char *image_b64, const char *media_type);

/* Appends the assistant turn (text + calls) and moves reply->raw into it. */
int fs_conv_add_reply(fs_conv *c, fs_llm_reply *reply);

/*
 * Keeps only the newest `keep` images (plain or inside tool results);
 * older ones become the text "[screenshot omitted]" so prompts stay small.
 * Raw provider JSON never holds our images (only model output), so it is
 * untouched.
 */
void fs_conv_prune_images(fs_conv *c, size_t keep);

int fs_llm_reply_add_call(fs_llm_reply *r, const char *id, const char *name, cJSON *args,
			  const char *args_error);
int fs_llm_reply_append_text(fs_llm_reply *r, const char *text);
void fs_llm_reply_free(fs_llm_reply *r);

/* "data:image/png;base64,XXXX" -> "XXXX"; other strings unchanged. */
const char *fs_strip_data_uri(const char *s);

#endif
