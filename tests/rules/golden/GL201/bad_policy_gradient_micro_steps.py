import torch


def train_rl(policy, reward_model, prompt, cfg):
    optimizer = torch.optim.AdamW(policy.parameters(), lr=cfg.lr)
    scaler = torch.amp.GradScaler("cuda", enabled=cfg.dtype == "float16")
    for it in range(cfg.max_iters):
        for micro_step in range(cfg.gradient_accumulation_steps):
            with torch.autocast("cuda", dtype=torch.float16):
                # each micro-step samples its own episodes from the policy
                states, rewards = policy.generate_episodes(prompt, cfg.episode_length, reward_model=reward_model)
                loss = -rewards.mean()
            scaler.scale(loss / cfg.gradient_accumulation_steps).backward()  # expect: GL201
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
