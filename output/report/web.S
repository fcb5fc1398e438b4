/*
 * The report page's files, linked into machtrace: d3 and d3-flame-graph
 * from build/web/node_modules (npm ci, output/output.mk), ours from
 * output/report/web.  Found through the assembler's -I paths.
 */
	.section .rodata
	.globl mt_web_d3, mt_web_d3_end
mt_web_d3:
	.incbin "d3/dist/d3.min.js"
mt_web_d3_end:
	.globl mt_web_flame, mt_web_flame_end
mt_web_flame:
	.incbin "d3-flame-graph/dist/d3-flamegraph.umd.min.js"
mt_web_flame_end:
	.globl mt_web_js, mt_web_js_end
mt_web_js:
	.incbin "report.js"
mt_web_js_end:
	.globl mt_web_css, mt_web_css_end
mt_web_css:
	.incbin "report.css"
mt_web_css_end:
	.section .note.GNU-stack,"",@progbits
