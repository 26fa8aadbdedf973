/* Test plugin: a shared object without tp_plugin_descriptor; refused. */
__attribute__((visibility("default"))) int not_a_plugin(void);
int not_a_plugin(void) { return 42; }
