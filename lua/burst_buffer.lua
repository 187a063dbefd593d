--[[
Skiff's example burst_buffer.lua (BurstBufferType=burst_buffer/lua).

Install it as burst_buffer.lua in Skiff's config directory, next to
burst_buffer.conf. The same file runs under Slurm's burst_buffer/lua plugin
(22.05 and later): Skiff calls the same functions with the same arguments.

What it does
  * Two pools: "fast" (8 GiB, 1 MiB granules) and "bulk" (64 GiB, 1 GiB
    granules). Jobs ask for space with  #BB_LUA pool=fast capacity=2G
  * File staging. A job script's leading comment block may hold
        #BB_LUA stage_in  source=/home/alice/in.dat  destination=/tmp/job_in
        #BB_LUA stage_out source=/tmp/job_out        destination=/home/alice/out
    (values may be double-quoted, as in Slurm's example). Every stage_in file is
    copied before the job starts; every stage_out file after it ends.
  * A per-job directory BB_ROOT/job_<id>, exported to the job as BB_JOB_DIR.
  * #BB_LUA stage_delay=SECONDS makes each asynchronous stage sleep first: a
    testing aid for timeouts and cancellation.

How Skiff calls these functions
  * Synchronous, inside ctld, must return in milliseconds and cannot be killed:
    slurm_bb_job_process, slurm_bb_pools, slurm_bb_paths. No sleeping, no
    network, no commands here.
  * Asynchronous, in a fresh process that scriptd starts, killed on timeout
    (burst_buffer.conf StageInTimeout, StageOutTimeout, OtherTimeout) or cancel:
    slurm_bb_setup, slurm_bb_data_in, slurm_bb_test_data_in, slurm_bb_real_size,
    slurm_bb_pre_run, slurm_bb_post_run, slurm_bb_data_out,
    slurm_bb_test_data_out, slurm_bb_job_teardown, slurm_bb_get_status.
  * Arguments arrive as strings (job_id "42", hurry "true"/"false"). job_info
    is a read-only table: job_id, user_id, group_id, user_name, account,
    partition, qos, time_limit, nodes, work_dir, burst_buffer,
    burst_buffer_state, job_state, array_job_id, array_task_id, gres_total.
  * job_script is the PATH of a file holding the job's batch script with any
    --bb/--bbf directives merged in; this script opens it itself.
  * Return slurm.SUCCESS, or slurm.ERROR and a message. A failed stage holds
    the job with Reason "burst_buffer/lua: <op> failed: <message>"; a failed
    slurm_bb_job_process rejects the submission and the user sees the message.
  * Log with slurm.log_error/log_info/log_verbose/log_debug(fmt, ...). print()
    also goes to the daemon's log.

Security: Skiff runs the stages that touch the job's files (data_in, data_out,
their test_ hooks, pre_run and post_run) as the job's user: uid, gid and
groups. A stage_in of /etc/shadow or a stage_out into /root fails with
"Permission denied" exactly as the user's own cp would. job_script is then a
copy the user can read (/proc/self/fd/N). setup, real_size and teardown run with
scriptd's privileges (usually root) because they manage the pool: here setup
creates the job's directory and gives it to the job's user, and teardown
removes it. Under Slurm every hook runs as SlurmUser; there this script would
copy as root, so do not use its staging on a Slurm cluster with untrusted users.
--]]

local lua_script_name = "burst_buffer.lua"

-- Must match Directive= in burst_buffer.conf (default BB_LUA).
local DIRECTIVE = "#BB_LUA"
-- Where per-job directories live. The environment override is for tests.
local BB_ROOT = os.getenv("SKIFF_BB_ROOT") or "/tmp/skiff-bb"
-- scriptd sets SKIFF_CLUSTER_NAME to skiff.conf's ClusterName.
local CLUSTER_NAME = os.getenv("SKIFF_CLUSTER_NAME") or "skiff"

------------------------------------------------------------------------------
-- Helpers (local: not part of the API)
------------------------------------------------------------------------------

-- Reads the job script and returns its directive lines (leading comment block
-- only, as Skiff and Slurm read directives), without the directive itself.
local function read_directives(job_script)
	local file, err = io.open(job_script, "r")
	if file == nil then
		return nil, "cannot read job script: " .. tostring(err)
	end
	local lines = {}
	for line in file:lines() do
		line = line:gsub("^%s+", ""):gsub("%s+$", "")
		if line ~= "" then
			if line:sub(1, 1) ~= "#" then
				break -- end of the leading comment block
			end
			local rest = nil
			if line == DIRECTIVE then
				rest = ""
			elseif line:sub(1, #DIRECTIVE + 1):match("^" .. DIRECTIVE:gsub("%p", "%%%0") .. "%s") then
				rest = line:sub(#DIRECTIVE + 2)
			end
			if rest ~= nil then
				table.insert(lines, rest)
			end
		end
	end
	file:close()
	return lines
end

-- key=value or key="value" from a directive line.
local function get_option(line, key)
	local value = line:match("%f[%w_]" .. key .. "=\"([^\"]*)\"")
	if value == nil then
		value = line:match("%f[%w_]" .. key .. "=(%S+)")
	end
	return value
end

-- Returns a list of {source=, destination=} for stage ("stage_in" or
-- "stage_out"), or nil and a message for a malformed line.
local function parse_stages(job_script, stage)
	local lines, err = read_directives(job_script)
	if lines == nil then
		return nil, err
	end
	local stages = {}
	for _, line in ipairs(lines) do
		local first = line:match("^(%S+)")
		if first == stage then
			local src = get_option(line, "source")
			local dest = get_option(line, "destination")
			if src == nil or dest == nil then
				return nil, stage .. " needs source=PATH and destination=PATH: " .. line
			end
			if src:sub(1, 1) ~= "/" or dest:sub(1, 1) ~= "/" then
				return nil, stage .. " paths must be absolute: " .. line
			end
			table.insert(stages, { source = src, destination = dest })
		end
	end
	return stages
end

local function stage_delay(job_script)
	local lines = read_directives(job_script) or {}
	for _, line in ipairs(lines) do
		local delay = get_option(line, "stage_delay")
		if delay ~= nil and delay:match("^%d+$") then
			return tonumber(delay)
		end
	end
	return 0
end

local function sleep_for_testing(job_script)
	local delay = stage_delay(job_script)
	if delay > 0 then
		os.execute("sleep " .. delay)
	end
end

-- Copies a file in 1 MiB chunks with Lua's io library: no shell, so no quoting
-- problems with odd file names.
local function copy_file(src, dest)
	local input, err = io.open(src, "rb")
	if input == nil then
		return false, "cannot open " .. src .. ": " .. tostring(err)
	end
	local output
	output, err = io.open(dest, "wb")
	if output == nil then
		input:close()
		return false, "cannot create " .. dest .. ": " .. tostring(err)
	end
	while true do
		local chunk = input:read(1024 * 1024)
		if chunk == nil then
			break
		end
		local ok, werr = output:write(chunk)
		if not ok then
			input:close()
			output:close()
			return false, "cannot write " .. dest .. ": " .. tostring(werr)
		end
	end
	input:close()
	local ok, cerr = output:close()
	if not ok then
		return false, "cannot write " .. dest .. ": " .. tostring(cerr)
	end
	return true
end

local function run_stages(job_id, job_script, stage)
	local stages, err = parse_stages(job_script, stage)
	if stages == nil then
		return slurm.ERROR, err
	end
	for _, s in ipairs(stages) do
		slurm.log_info("%s: JobId=%s %s %s -> %s", lua_script_name, job_id, stage,
			s.source, s.destination)
		local ok, cerr = copy_file(s.source, s.destination)
		if not ok then
			return slurm.ERROR, stage .. " " .. cerr
		end
	end
	return slurm.SUCCESS
end

-- Whether the job's user can read a stage_in source, asked inside ctld as
-- root. Opening it there would tell the user whether any path exists, and a
-- FIFO would block ctld until written to; skiff.user_can_read only looks at
-- modes, and says nothing the user's own `test -r` would not. Under Slurm (no
-- skiff table) the file is opened, as SlurmUser.
local function stage_in_source_readable(source, uid, gid)
	-- One message for every reason (missing, unreadable, not a regular file),
	-- worded as on the reference cluster.
	local message = "stage_in source " .. source .. " not found"
	if skiff ~= nil then
		if not skiff.user_can_read(source, uid, gid) then
			return false, message
		end
		return true
	end
	local f = io.open(source, "rb")
	if f == nil then
		return false, message
	end
	f:close()
	return true
end

-- job_id arrives as a string; it becomes part of a path and a command line,
-- so insist on digits.
local function job_dir(job_id)
	if not tostring(job_id):match("^%d+$") then
		return nil
	end
	return BB_ROOT .. "/job_" .. job_id
end

------------------------------------------------------------------------------
-- Synchronous functions (called inside ctld: keep them fast)
------------------------------------------------------------------------------

--[[
slurm_bb_job_process(job_script, uid, gid, job_info)
  Slurm 22.05: (job_script).
  Called at submission for every job with burst-buffer directives. Return
  slurm.ERROR and a message to reject the job; the user sees the message.
  Here: every stage_in/stage_out line must be well formed, and each stage_in
  source must be a regular file the job's user can read now (paths with
  %-symbols are checked at stage-in instead, since the symbols may not be
  expanded yet).
--]]
function slurm_bb_job_process(job_script, uid, gid, job_info)
	for _, stage in ipairs({ "stage_in", "stage_out" }) do
		local stages, err = parse_stages(job_script, stage)
		if stages == nil then
			return slurm.ERROR, err
		end
		if stage == "stage_in" then
			for _, s in ipairs(stages) do
				if not s.source:find("%", 1, true) then
					local ok, err = stage_in_source_readable(s.source, uid, gid)
					if not ok then
						return slurm.ERROR, err
					end
				end
			end
		end
	end
	return slurm.SUCCESS
end

--[[
slurm_bb_pools()
  Called at start-up and every 30 seconds. Returns slurm.SUCCESS and a JSON
  description of the pools, or only slurm.SUCCESS for no pools.
    id           pool name, used as #BB_LUA pool=NAME
    quantity     number of granules in the pool
    granularity  bytes per granule; requests are rounded up to whole granules
    free         granules free according to the storage system
  Total space is quantity x granularity. A pool that disappears from a later
  answer is zeroed: running jobs keep their space, new ones wait.
--]]
function slurm_bb_pools()
	local pools = [[
{
  "pools": [
    { "id": "fast", "quantity": 8192, "granularity": 1048576, "free": 8192 },
    { "id": "bulk", "quantity": 64, "granularity": 1073741824, "free": 64 }
  ]
}]]
	return slurm.SUCCESS, pools
end

--[[
slurm_bb_paths(job_id, job_script, path_file, uid, gid, job_info)
  Slurm 22.05: (job_id, job_script, path_file).
  Called when the job is about to start. NAME=value lines written to path_file
  are added to the job's environment.
--]]
function slurm_bb_paths(job_id, job_script, path_file, uid, gid, job_info)
	local dir = job_dir(job_id)
	if dir == nil then
		return slurm.ERROR, "bad job id " .. tostring(job_id)
	end
	local file, err = io.open(path_file, "w")
	if file == nil then
		return slurm.ERROR, "cannot write " .. path_file .. ": " .. tostring(err)
	end
	file:write("BB_JOB_DIR=" .. dir .. "\n")
	file:close()
	return slurm.SUCCESS
end

------------------------------------------------------------------------------
-- Asynchronous functions (run by scriptd in their own process, killable)
------------------------------------------------------------------------------

--[[
slurm_bb_setup(job_id, uid, gid, pool, bb_size, job_script, job_info)
  Slurm 22.05: the same without job_info.
  First step of stage-in, after pool space was reserved. pool is "" and
  bb_size "0" when the job asked for no space; bb_size is in bytes.
--]]
function slurm_bb_setup(job_id, uid, gid, pool, bb_size, job_script, job_info)
	local dir = job_dir(job_id)
	if dir == nil then
		return slurm.ERROR, "bad job id " .. tostring(job_id)
	end
	slurm.log_info("%s: JobId=%s setup pool=%s size=%s dir=%s", lua_script_name, job_id,
		tostring(pool), tostring(bb_size), dir)
	if not tostring(uid):match("^%d+$") or not tostring(gid):match("^%d+$") then
		return slurm.ERROR, "bad uid/gid " .. tostring(uid) .. "/" .. tostring(gid)
	end
	-- The directory is the job user's alone: the stages that fill and empty it
	-- run as that user. This hook runs as root, so it must not follow a link a
	-- user planted as BB_ROOT/job_<their next id>: skiff.make_user_dir creates
	-- and hands it over through file descriptors, and refuses links, other
	-- users' directories and a BB_ROOT that others could rearrange.
	-- BB_ROOT itself, on first use. mkdir -p changes nothing that exists: a
	-- BB_ROOT a user made first is theirs, and make_user_dir refuses it.
	os.execute("mkdir -p -m 755 '" .. BB_ROOT .. "'")
	if skiff ~= nil then
		local ok, err = skiff.make_user_dir(dir, uid, gid, "0700")
		if not ok then
			return slurm.ERROR, tostring(err)
		end
	else
		-- Under Slurm hooks run as SlurmUser, who cannot give the directory
		-- away: it only makes it (a retried setup finds it), and changes
		-- nothing that was already there.
		if not os.execute("[ -d '" .. dir .. "' ] && [ ! -h '" .. dir .. "' ] || mkdir -m 700 '" .. dir .. "'") then
			return slurm.ERROR, "cannot create " .. dir
		end
	end
	return slurm.SUCCESS
end

--[[
slurm_bb_data_in(job_id, job_script, uid, gid, job_info)
  Slurm 22.05: (job_id, job_script).
  Stage-in: copies every stage_in file. Timed out by StageInTimeout.
--]]
function slurm_bb_data_in(job_id, job_script, uid, gid, job_info)
	sleep_for_testing(job_script)
	return run_stages(job_id, job_script, "stage_in")
end

--[[
slurm_bb_test_data_in(job_id, job_script, uid, gid, job_info)
  Added in Slurm 24.05 (optional: when absent, stage-in is done once data_in
  returns). Polled every PollInterval until it returns slurm.SUCCESS without
  "BUSY"; return slurm.SUCCESS, slurm.SLURM_BB_BUSY while a transfer that
  data_in started is still running. This example copies synchronously in
  data_in, so it is always done.
--]]
function slurm_bb_test_data_in(job_id, job_script, uid, gid, job_info)
	return slurm.SUCCESS
end

--[[
slurm_bb_real_size(job_id, uid, gid, job_info)
  Slurm 22.05: (job_id).
  Called after stage-in when the job requested a pool and size. May return
  slurm.SUCCESS and a larger size in bytes (the charge is never lowered).
--]]
function slurm_bb_real_size(job_id, uid, gid, job_info)
	return slurm.SUCCESS
end

--[[
slurm_bb_pre_run(job_id, job_script, uid, gid, job_info)
  Slurm 22.05: (job_id, job_script).
  The job has its nodes and is CONFIGURING; it starts when this returns.
--]]
function slurm_bb_pre_run(job_id, job_script, uid, gid, job_info)
	sleep_for_testing(job_script)
	return slurm.SUCCESS
end

--[[
slurm_bb_post_run(job_id, job_script, uid, gid, job_info)
  Slurm 22.05: (job_id, job_script).
  The batch script has ended; stage-out follows.
--]]
function slurm_bb_post_run(job_id, job_script, uid, gid, job_info)
	sleep_for_testing(job_script)
	return slurm.SUCCESS
end

--[[
slurm_bb_data_out(job_id, job_script, uid, gid, job_info)
  Slurm 22.05: (job_id, job_script).
  Stage-out: copies every stage_out file. Timed out by StageOutTimeout.
  Skipped for `scancel --hurry` and for jobs that never ran.
--]]
function slurm_bb_data_out(job_id, job_script, uid, gid, job_info)
	sleep_for_testing(job_script)
	return run_stages(job_id, job_script, "stage_out")
end

--[[
slurm_bb_test_data_out(job_id, job_script, uid, gid, job_info)
  Added in Slurm 24.05 (optional). Like slurm_bb_test_data_in, for stage-out.
--]]
function slurm_bb_test_data_out(job_id, job_script, uid, gid, job_info)
	return slurm.SUCCESS
end

--[[
slurm_bb_job_teardown(job_id, job_script, hurry, uid, gid, job_info)
  Slurm 22.05: (job_id, job_script, hurry).
  Last call for every job that reached stage-in, also after cancellation or a
  failure. hurry is "true" after `scancel --hurry`. Pool space is returned when
  this succeeds; on failure the buffer shows teardown-fail and is retried.
--]]
function slurm_bb_job_teardown(job_id, job_script, hurry, uid, gid, job_info)
	local dir = job_dir(job_id)
	if dir == nil then
		return slurm.ERROR, "bad job id " .. tostring(job_id)
	end
	slurm.log_info("%s: JobId=%s teardown hurry=%s", lua_script_name, job_id, tostring(hurry))
	local ok = os.execute("rm -rf '" .. dir .. "'")
	if not ok then
		return slurm.ERROR, "cannot remove " .. dir
	end
	return slurm.SUCCESS
end

--[[
slurm_bb_get_status(uid, gid, ...)
  Slurm 22.05: (...), whose first two values are then uid and gid.
  `scontrol show bbstat WORDS...` prints the message; WORDS arrive after gid.
--]]
function slurm_bb_get_status(uid, gid, ...)
	local words = { ... }
	local status = CLUSTER_NAME .. " burst_buffer.lua status: root=" .. BB_ROOT
	if #words > 0 then
		status = status .. " args=" .. table.concat(words, ",")
	end
	return slurm.SUCCESS, status
end
