# analysis `inference_steps`: PCRE2 for the step patterns (the SDK's tp_sdk_regex.h).
LIBS_inference_steps := $(shell pkg-config --libs libpcre2-8)
CFLAGS_inference_steps := $(shell pkg-config --cflags libpcre2-8)
