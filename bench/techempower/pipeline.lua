-- wrk script: every request is `depth` (the first argument after `--`, default 16) GETs of the
-- URL sent at once on the connection, as TechEmpower's plaintext test sends them. wrk counts each
-- response.
init = function(args)
  local depth = tonumber(args[1]) or 16
  local batch = {}
  for i = 1, depth do
    batch[i] = wrk.format()
  end
  pipelined = table.concat(batch)
end

request = function()
  return pipelined
end
