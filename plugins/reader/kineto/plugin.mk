# kineto reader: ISA-L (igzip) for gzip input, pthread for the inflate and
# split threads; jansson for the small metadata values read into trace info.
LIBS_kineto := -lisal -lpthread -ljansson
