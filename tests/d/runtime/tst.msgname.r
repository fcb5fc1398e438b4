thread_create thread_create-reply
mach mach mach_port_allocate
[12345] [] [-1]
machload_echo machload_echo-reply
thread_create-reply 13
task_info-reply 1
task_info 2

