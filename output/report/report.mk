# Trace outputs: the HTML report (output/report).  Its page inlines d3 and
# d3-flame-graph from npm: `npm ci` installs the versions pinned in
# output/report/web/package-lock.json into build/web (one tree for every
# BUILD, SAN included), and web.S links the files into machtrace.
WEB_DIR := build/web
WEB_SRC := output/report/web
REPORT_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard output/report/*.c)) \
	$(BUILD)/obj/output/report/web.o
$(BUILD)/lib/libmtreport.a: $(REPORT_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
MT_LIBS += $(BUILD)/lib/libmtreport.a

$(WEB_DIR)/.installed: $(WEB_SRC)/package.json $(WEB_SRC)/package-lock.json
	@command -v npm >/dev/null || { echo "npm is missing: run make setup" >&2; exit 1; }
	@mkdir -p $(WEB_DIR)
	cp $^ $(WEB_DIR)/
	cd $(WEB_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

$(BUILD)/obj/output/report/web.o: output/report/web.S $(WEB_DIR)/.installed \
		$(WEB_SRC)/report.js $(WEB_SRC)/report.css
	@mkdir -p $(dir $@)
	$(CC) -c -Wa,-I,$(WEB_DIR)/node_modules -Wa,-I,$(WEB_SRC) $< -o $@
