/* uregs[] has no register below index 0 */
BEGIN { trace(uregs[-1]); }
