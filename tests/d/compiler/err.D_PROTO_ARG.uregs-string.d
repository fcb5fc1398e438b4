/* uregs[] takes an integer index */
BEGIN { trace(uregs["rip"]); }
